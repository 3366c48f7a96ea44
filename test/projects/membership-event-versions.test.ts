/**
 * Membership events are versioned per membership (conventions, Events: "Consumers dedupe by `id`
 * and drop events whose `aggregate_version` is older than what they hold"). The aggregate of a
 * membership event is the membership — `project:<project id>:member:<user id>` or
 * `workspace:<workspace id>:member:<user id>` — and its version is the number of changes of that
 * membership so far (its membership audit records), so a consumer orders a revoke against a later
 * re-grant of the same user — SQLite and Postgres.
 */
import t from "tap";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { isNewerThan } from "../../core/kernel/EventEnvelope.js";
import { addProjectMember, createProject, revokeProjectMembership } from "../../core/projects/Projects.js";
import { addWorkspaceMember, createWorkspace, removeWorkspaceMember } from "../../core/projects/Workspaces.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { forEachDialect } from "../support/databases.js";
import { newUser, projectsRuntime } from "./support.js";
import { statementsRun } from "./statementsRun.js";

const membershipTypes = ["WorkspaceMembershipGranted", "WorkspaceMembershipRevoked", "MembershipGranted", "MembershipRevoked"];

/** The membership envelopes in the outbox, in the order they were appended. */
const membershipEvents = async (db: SqlDatabase): Promise<EventEnvelope[]> =>
  (await db.db.selectFrom("outbox").select(["event"]).where("type", "in", membershipTypes).orderBy("id").execute()).map(
    (r) => featuresFor(db).jsonFromDb(r.event) as EventEnvelope,
  );

/** What a consumer ordering by version checks: type, aggregate and version of each event. */
const summary = (events: ReadonlyArray<EventEnvelope>) =>
  events.map((e) => ({ type: e.type, aggregate_id: e.aggregate_id, aggregate_version: e.aggregate_version }));

t.test("Events: each membership's events carry its own aggregate and a version that rises with every change of it", (t) =>
  forEachDialect(t, "membership versions", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const bob = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const bobInWorkspace = `workspace:${workspace.id}:member:${bob.userId}`;
    const bobInProject = `project:${project.id}:member:${bob.userId}`;
    const before = (await membershipEvents(db)).length;

    await run(addWorkspaceMember(owner, workspace.id, { userId: bob.userId, role: "member" }));
    await run(addProjectMember(owner, project.id, { userId: bob.userId, role: "contributor" }));
    await run(addProjectMember(owner, project.id, { userId: bob.userId, role: "viewer" }));
    await run(revokeProjectMembership(owner, project.id, { userId: bob.userId }));
    await run(revokeProjectMembership(owner, project.id, { userId: bob.userId }));
    await run(addProjectMember(owner, project.id, { userId: bob.userId, role: "commenter" }));
    await run(removeWorkspaceMember(owner, workspace.id, { userId: bob.userId }));
    await run(addWorkspaceMember(owner, workspace.id, { userId: bob.userId, role: "guest" }));

    const events = await membershipEvents(db);
    t.same(
      summary(events.slice(0, before)),
      [
        { type: "WorkspaceMembershipGranted", aggregate_id: `workspace:${workspace.id}:member:${owner.userId}`, aggregate_version: 1 },
        { type: "MembershipGranted", aggregate_id: `project:${project.id}:member:${owner.userId}`, aggregate_version: 1 },
      ],
      "the creator's memberships start at version 1",
    );
    t.same(
      summary(events.slice(before)),
      [
        { type: "WorkspaceMembershipGranted", aggregate_id: bobInWorkspace, aggregate_version: 1 },
        { type: "MembershipGranted", aggregate_id: bobInProject, aggregate_version: 1 },
        { type: "MembershipGranted", aggregate_id: bobInProject, aggregate_version: 2 },
        { type: "MembershipRevoked", aggregate_id: bobInProject, aggregate_version: 3 },
        { type: "MembershipGranted", aggregate_id: bobInProject, aggregate_version: 4 },
        { type: "MembershipRevoked", aggregate_id: bobInProject, aggregate_version: 5 },
        { type: "WorkspaceMembershipRevoked", aggregate_id: bobInWorkspace, aggregate_version: 2 },
        { type: "WorkspaceMembershipGranted", aggregate_id: bobInWorkspace, aggregate_version: 3 },
      ],
      "a repeated revocation changes nothing and takes no version; the workspace removal revokes the project membership at its next version",
    );
    const revoke = events.find((e) => e.type === "MembershipRevoked" && e.aggregate_id === bobInProject)!;
    const regrant = events.find((e) => e.type === "MembershipGranted" && e.aggregate_id === bobInProject && e.aggregate_version > revoke.aggregate_version)!;
    t.ok(isNewerThan(regrant, revoke.aggregate_version), "a consumer holding the revoke applies the later re-grant");
    t.notOk(isNewerThan(revoke, regrant.aggregate_version), "a consumer holding the re-grant drops the revoke delivered late");
    t.match(regrant.data, { workspace_id: workspace.id, project_id: project.id, user_id: bob.userId, role: "commenter" }, "the data is as before");

    const audits = await db.db
      .selectFrom("pm_membership_audit")
      .select("id")
      .where("project_id", "=", project.id)
      .where("user_id", "=", bob.userId)
      .execute();
    t.equal(audits.length, 5, "the version is the count of the membership's audit records");
  }),
);

t.test("Events: concurrent changes of one membership get distinct versions", (t) =>
  forEachDialect(t, "concurrent membership changes", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const bob = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    await run(addWorkspaceMember(owner, workspace.id, { userId: bob.userId, role: "member" }));
    await Promise.all(
      (["viewer", "commenter", "contributor", "admin"] as const).map((role) => run(addProjectMember(owner, project.id, { userId: bob.userId, role }))),
    );
    const versions = (await membershipEvents(db))
      .filter((e) => e.aggregate_id === `project:${project.id}:member:${bob.userId}`)
      .map((e) => e.aggregate_version)
      .sort((a, b) => a - b);
    t.same(versions, [1, 2, 3, 4], "each change its own version, in commit order");
  }),
);

t.test("Events: a demotion that lowers a project role versions that project membership too", (t) =>
  forEachDialect(t, "demotion versions", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const carol = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    await run(addWorkspaceMember(owner, workspace.id, { userId: carol.userId, role: "member" }));
    await run(addProjectMember(owner, project.id, { userId: carol.userId, role: "admin" }));
    await run(addWorkspaceMember(owner, workspace.id, { userId: carol.userId, role: "guest", reason: "contract ended" }));
    const carols = (await membershipEvents(db)).filter((e) => e.aggregate_id.endsWith(`:member:${carol.userId}`));
    t.same(
      summary(carols),
      [
        { type: "WorkspaceMembershipGranted", aggregate_id: `workspace:${workspace.id}:member:${carol.userId}`, aggregate_version: 1 },
        { type: "MembershipGranted", aggregate_id: `project:${project.id}:member:${carol.userId}`, aggregate_version: 1 },
        { type: "MembershipGranted", aggregate_id: `project:${project.id}:member:${carol.userId}`, aggregate_version: 2 },
        { type: "WorkspaceMembershipGranted", aggregate_id: `workspace:${workspace.id}:member:${carol.userId}`, aggregate_version: 2 },
      ],
      "the lowered project role and the new workspace role, each at its membership's next version",
    );
    t.match(carols[2]!.data, { role: "contributor", reason: "contract ended" });
  }),
);

t.test("Events: a demotion to guest and a removal write as many statements for 30 project memberships as for 2, each membership at its next version", (t) =>
  forEachDialect(t, "set-based membership changes", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const few = newUser();
    const many = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const projects = [];
    for (let i = 0; i < 30; i++) projects.push((await run(createProject(owner, workspace.id, { name: `P${i}` }))).project);
    for (const user of [few, many]) await run(addWorkspaceMember(owner, workspace.id, { userId: user.userId, role: "member" }));
    for (const p of projects.slice(0, 2)) await run(addProjectMember(owner, p.id, { userId: few.userId, role: "admin" }));
    for (const p of projects) await run(addProjectMember(owner, p.id, { userId: many.userId, role: "admin" }));
    // The module's statements (the outbox's own adapter appends a row per envelope: a shared file).
    const statements = (change: Parameters<typeof run>[0]) => statementsRun(db, (text) => text.includes("pm_"), () => run(change));

    const demoteFew = await statements(addWorkspaceMember(owner, workspace.id, { userId: few.userId, role: "guest", reason: "contract ended" }));
    const demoteMany = await statements(addWorkspaceMember(owner, workspace.id, { userId: many.userId, role: "guest", reason: "contract ended" }));
    t.ok(demoteFew > 0, `a demotion to guest of 2 admin memberships: ${demoteFew} statements`);
    t.equal(demoteMany, demoteFew, "a demotion to guest of 30 admin memberships: as many");
    const removeFew = await statements(removeWorkspaceMember(owner, workspace.id, { userId: few.userId }));
    const removeMany = await statements(removeWorkspaceMember(owner, workspace.id, { userId: many.userId }));
    t.ok(removeFew > 0, `a removal of 2 project memberships: ${removeFew} statements`);
    t.equal(removeMany, removeFew, "a removal of 30 project memberships: as many");

    const events = await membershipEvents(db);
    for (const [user, held] of [[few, projects.slice(0, 2)], [many, projects]] as const) {
      for (const p of held) {
        const aggregate = `project:${p.id}:member:${user.userId}`;
        const own = events.filter((e) => e.aggregate_id === aggregate);
        t.same(
          own.map((e) => [e.type, e.aggregate_version, (e.data as { role: unknown }).role, (e.data as { reason: unknown }).reason]),
          [
            ["MembershipGranted", 1, "admin", "added by a project admin"],
            ["MembershipGranted", 2, "contributor", "contract ended"],
            ["MembershipRevoked", 3, null, "removed by an owner"],
          ],
          `${aggregate}: granted, lowered and revoked, each at its next version`,
        );
      }
      const audits = await db.db
        .selectFrom("pm_membership_audit")
        .select(["project_id", "action", "role", "actor_id"])
        .where("workspace_id", "=", workspace.id)
        .where("user_id", "=", user.userId)
        .where("project_id", "is not", null)
        .execute();
      t.equal(audits.length, 3 * held.length, "three audit records per project membership");
      t.equal(audits.filter((a) => a.action === "project_member.added" && a.role === "contributor" && a.actor_id === owner.userId).length, held.length, "each lowering audited");
      t.equal(audits.filter((a) => a.action === "project_member.removed" && a.role === null && a.actor_id === owner.userId).length, held.length, "each removal audited");
    }
  }),
);
