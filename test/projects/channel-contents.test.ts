/**
 * Spec (Authentication 2: "Project admin — project settings and membership"; What the service
 * does: "without leaking workspace data"; Events: MembershipRevoked goes "to realtime session
 * revocation, audit"): a project's live channel is read by every member, viewers and guests
 * included, so it carries the project's work (tasks, comments, attachments) and not the
 * membership audit — who was added or removed, by whom, in which role and why. Realtime acts on a
 * membership change through `access_changed` (the affected user's subscriptions re-check access),
 * not by broadcasting it — SQLite and Postgres.
 */
import t from "tap";
import { Effect } from "effect";
import { addProjectMember, revokeProjectMembership } from "../../core/projects/Projects.js";
import { createTask } from "../../core/projects/CreateTask.js";
import { addWorkspaceMember } from "../../core/projects/Workspaces.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { forEachDialect } from "../support/databases.js";
import { coreFixture, drainOutbox, slice2aRuntime } from "./notifications-support.js";
import { newUser } from "./support.js";

t.test("a project channel broadcasts no membership audit (actor, role, reason) to its members and guests", (t) =>
  forEachDialect(t, "membership on the channel", async (t, db) => {
    const { run, notices } = slice2aRuntime(t, db);
    const { owner, project, workspace } = await coreFixture(run, { guest: { workspace: "guest", project: "viewer" } });
    const bob = newUser();
    await run(addWorkspaceMember(owner, workspace.id, { userId: bob.userId, role: "member" }));
    await run(addProjectMember(owner, project.id, { userId: bob.userId, role: "contributor", reason: "joins for the launch" }));
    await run(revokeProjectMembership(owner, project.id, { userId: bob.userId, reason: "complaint from a customer" }));
    const task = await run(createTask(owner, project.id, { title: "Still shown" }));
    await run(drainOutbox());
    const { messages } = await run(Effect.flatMap(ChannelLog, (log) => log.readSince(`project:${project.id}`, 0, 1000)));
    const types = messages.map((m) => m.event.type);
    t.ok(types.includes("TaskCreated"), "the project's work is on its channel");
    t.same(types.filter((type) => type === "MembershipGranted" || type === "MembershipRevoked"), [], "no membership event on the channel");
    t.notOk(JSON.stringify(messages).includes("complaint from a customer"), "no removal reason reaches the guest's channel");
    t.ok(messages.some((m) => m.event.aggregate_id === task.id));
    t.ok(
      notices.some((n) => (n as { type?: string; userId?: string }).type === "access_changed" && (n as { userId?: string }).userId === bob.userId),
      "the removed user's subscriptions are told to re-check access",
    );
  }),
);
