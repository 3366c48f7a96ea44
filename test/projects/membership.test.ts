/**
 * Spec rule 7: DELETE /v1/projects/:id/members/:userId is idempotent (204 twice, one removal),
 * records actor and reason, produces MembershipRevoked once, drops the user's live
 * subscription to `project:<id>` within a second, and the user's next request to the project
 * answers 404. Live subscriptions are authorized by current membership and receive the
 * project's task events — SQLite and Postgres.
 */
import t from "tap";
import { connectRealtimeClient } from "../support/realtimeClient.js";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { forEachDialectConfig, hostSecret } from "../hosts/support.js";
import { projectFixture, startProjectsServer } from "./support.js";

/** A realtime client of `userId` that keeps every message it receives. */
const connect = async (url: string, userId: string) => connectRealtimeClient(url, await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 }));

forEachDialectConfig(t, `membership revocation is idempotent, audited, and cuts HTTP and realtime access`, async (t, config, dialect) => {
  const { client, server, db } = await startProjectsServer(t, config);
  const { owner, projectId, workspaceId, clients } = await projectFixture(client, {
    dev: { workspace: "member", project: "contributor" },
    admin: { workspace: "member", project: "admin" },
    stranger: { workspace: "member" },
  });
  const dev = clients.dev!;
  const channel = `project:${projectId}`;

  const live = await connect(server.url, dev.userId);
  t.teardown(() => live.socket.close());
  live.send({ type: "subscribe", channel });
  t.match(await live.next((m) => m.type === "subscribed" || m.type === "error", 2000), { type: "subscribed", channel });
  const outsider = await connect(server.url, clients.stranger!.userId);
  t.teardown(() => outsider.socket.close());
  outsider.send({ type: "subscribe", channel });
  t.match(await outsider.next((m) => m.channel === channel, 2000), { type: "error" }, "a workspace member without the project is refused");

  const task = await dev.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Ship it" });
  const event = await live.next((m) => m.type === "event" && m.event.type === "TaskCreated", 5000);
  t.match(event, { channel, event: { aggregate_id: task.body.id, aggregate_version: 1 } }, "task events reach the project channel");
  t.equal(event?.event.actor_id, dev.userId, "with who acted: the project's members see that in the activity feed too");

  t.equal(
    (await dev.call("DELETE", `/v1/projects/${projectId}/members/${clients.admin!.userId}`)).status,
    403,
    "a contributor sees the project but may not revoke",
  );

  const started = Date.now();
  const revoked = await clients.admin!.call("DELETE", `/v1/projects/${projectId}/members/${dev.userId}?reason=left%20the%20team`);
  t.equal(revoked.status, 204);
  t.equal(revoked.body, undefined, "no body");
  const dropped = await live.next((m) => m.type === "unsubscribed", 1000);
  t.match(dropped, { type: "unsubscribed", channel, reason: "access_revoked" }, "the live subscription is dropped");
  const elapsed = Date.now() - started;
  t.ok(elapsed <= 1500, `within a second of the answer (${elapsed} ms since the request)`);

  const again = await clients.admin!.call("DELETE", `/v1/projects/${projectId}/members/${dev.userId}`);
  t.equal(again.status, 204, "revoking again is idempotent");

  for (const path of [`/v1/projects/${projectId}`, `/v1/projects/${projectId}/tasks`, `/v1/tasks/${task.body.id}`]) {
    t.equal((await dev.call("GET", path)).status, 404, `the removed user's GET ${path.split("/")[2]} answers 404`);
  }
  const feed = await dev.call("GET", "/v1/activity");
  t.same(feed.body.data, [], "and its activity feed no longer shows the project");

  const audit = await db.db
    .selectFrom("pm_membership_audit")
    .selectAll()
    .where("user_id", "=", dev.userId)
    .where("action", "=", "project_member.removed")
    .execute();
  t.equal(audit.length, 1, "one audit record for the one removal");
  t.match(audit[0], { actor_id: clients.admin!.userId, reason: "left the team", project_id: projectId, workspace_id: workspaceId });
  const outbox = await db.db.selectFrom("outbox").select("id").where("type", "=", "MembershipRevoked").execute();
  t.equal(outbox.length, 1, "MembershipRevoked produced once");

  live.send({ type: "subscribe", channel });
  t.match(await live.next((m) => m.type === "error" && m.channel === channel, 2000), { type: "error" }, "resubscribing is refused");

  // Removing a workspace member takes its project access too; the last owner stays.
  t.equal((await owner.call("DELETE", `/v1/workspaces/${workspaceId}/members/${clients.admin!.userId}`)).status, 204);
  t.equal((await clients.admin!.call("GET", `/v1/projects/${projectId}`)).status, 404);
  const lastOwner = await owner.call("DELETE", `/v1/workspaces/${workspaceId}/members/${owner.userId}`);
  t.equal(lastOwner.status, 409);
  t.equal(lastOwner.body.code, "last_owner");
});
