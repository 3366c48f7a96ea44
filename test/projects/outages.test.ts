/**
 * Spec rule 9 (membership side): a realtime outage never fails a write. With a RealtimeBus that
 * fails every publish, revoking a membership still answers success and the removal is committed
 * — SQLite and Postgres.
 */
import t from "tap";
import { Effect, Layer } from "effect";
import { addProjectMember, createProject, revokeProjectMembership } from "../../core/projects/Projects.js";
import { addWorkspaceMember, createWorkspace } from "../../core/projects/Workspaces.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { forEachDialect } from "../support/databases.js";
import { newUser, projectsRuntime } from "./support.js";

const brokenBus = Layer.succeed(RealtimeBus, {
  publish: () => Effect.dieMessage("realtime is down"),
  listen: () => Effect.dieMessage("realtime is down"),
});

t.test("a realtime outage does not fail a membership revocation", (t) =>
  forEachDialect(t, "bus outage", async (t, db) => {
    const { run, attempt } = projectsRuntime(t, db, brokenBus);
    const owner = newUser();
    const member = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    await run(addWorkspaceMember(owner, workspace.id, { userId: member.userId, role: "member" }));
    await run(addProjectMember(owner, project.id, { userId: member.userId, role: "viewer" }));
    const revoked = await attempt(revokeProjectMembership(owner, project.id, { userId: member.userId, reason: "test" }));
    t.match(revoked, { ok: true, value: { removed: true } }, "the revocation succeeds although the bus fails");
    const stored = await run(Effect.flatMap(ProjectsRepository, (r) => r.findMember(project.id, member.userId)));
    t.equal(stored, null, "and the membership is gone");
  }),
);
