/**
 * Nobody is kept in a workspace against their will (security audit round 2: any owner who knows a
 * user id adds that user directly, so the user must be able to leave): a member or guest removes
 * themselves with DELETE /v1/workspaces/:id/members/<self> (204), losing the workspace and its
 * projects; they may not remove anyone else (403); the last owner cannot leave (409 last_owner);
 * leaving is audited with its reason. SQLite and Postgres.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { projectFixture, startProjectsServer } from "./support.js";

forEachDialectConfig(t, "a member may leave a workspace; only owners remove others; the last owner stays", async (t, config) => {
  const { client, db } = await startProjectsServer(t, config);
  const { owner, workspaceId, projectId, clients } = await projectFixture(client, {
    added: { workspace: "member", project: "contributor" },
    guest: { workspace: "guest", project: "viewer" },
  });
  const added = clients.added!;
  const guest = clients.guest!;

  t.equal((await added.call("DELETE", `/v1/workspaces/${workspaceId}/members/${guest.userId}`)).status, 403, "a member removes nobody else");
  t.equal((await added.call("DELETE", `/v1/workspaces/${workspaceId}/members/${added.userId}?reason=never%20asked%20to%20join`)).status, 204, "a member leaves");
  t.equal((await added.call("GET", `/v1/workspaces/${workspaceId}`)).status, 404, "and no longer sees the workspace");
  t.equal((await added.call("GET", `/v1/projects/${projectId}`)).status, 404, "nor its projects");
  t.equal((await added.call("DELETE", `/v1/workspaces/${workspaceId}/members/${added.userId}`)).status, 404, "a second leave: not a member any more");
  t.equal((await guest.call("DELETE", `/v1/workspaces/${workspaceId}/members/${guest.userId}`)).status, 204, "a guest leaves too");

  const lastOwner = await owner.call("DELETE", `/v1/workspaces/${workspaceId}/members/${owner.userId}`);
  t.match(lastOwner, { status: 409, body: { code: "last_owner" } }, "the last owner cannot leave");

  const facts = await db.db
    .selectFrom("pm_membership_audit")
    .select(["actor_id", "user_id", "action", "reason"])
    .where("workspace_id", "=", workspaceId)
    .where("action", "=", "workspace_member.removed")
    .execute();
  t.match(
    facts.find((f) => f.user_id === added.userId),
    { actor_id: added.userId, reason: "never asked to join" },
    "leaving is audited: by whom and why",
  );
  t.match(facts.find((f) => f.user_id === guest.userId), { actor_id: guest.userId, reason: "left the workspace" }, "with a default reason");
});
