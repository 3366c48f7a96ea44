/**
 * A member's drive channel `drive:<workspace id>:<user id>` on the reference server (SQLite and
 * Postgres): the member subscribes and receives one DriveChanged per change record they can see,
 * naming only the sequence number (the feed, filtered by access, tells the rest); a member removed
 * from the workspace loses the live subscription at once and cannot subscribe again.
 */
import t from "tap";
import { connectRealtime, startFilesServer, type Json, eachDialect } from "./http-support.js";

t.test("members follow their drive channel live; a removed member's subscription is dropped", (t) =>
  eachDialect(t, "drive channel", async (t, dialect) => {
    const { server, call, user, workspace } = await startFilesServer(t, dialect);
    const ann = await user();
    const bob = await user();
    const ws = await workspace(ann, [bob]);
    const channel = `drive:${ws.id}:${bob.id}`;

    const live = await connectRealtime(server.url, bob, t);
    live.send({ type: "subscribe", channel });
    t.match(await live.next((m) => m.type === "subscribed" || m.type === "error", 3000), { type: "subscribed", channel });

    const plans = String((await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Plans", kind: "folder" } })).body.id); // seq 1
    t.equal((await call(`/v1/nodes/${plans}/permissions`, { user: ann, body: { user_id: bob.id, role: "viewer" } })).status, 200); // seq 2: entered bob's view
    await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Private", kind: "folder" } }); // seq 3: not bob's
    await call("/v1/nodes", { user: ann, body: { parent_id: plans, name: "Agenda", kind: "folder" } }); // seq 4
    const last = await live.next((m) => m.type === "event" && (m.event as Json | undefined)?.aggregate_version === 4, 5000);
    t.match(last, { type: "event", channel, event: { type: "DriveChanged", tenant_id: ws.id, aggregate_id: ws.id, data: { seq: 4 } } }, "one announcement per change he can see, in order");
    const events = live.messages.filter((m) => m.type === "event");
    t.same(
      events.map((m) => (m.event as Json).aggregate_version).filter((seq) => (seq as number) >= 2),
      [2, 4],
      "from his grant on (seq 1 is his only if consumed after the grant), never the change he cannot see",
    );
    t.notOk(JSON.stringify(events).includes("Private") || JSON.stringify(events).includes("Agenda"), "an announcement names no node");
    const feed = await call(`/v1/changes?workspace_id=${ws.id}`, { user: bob });
    t.same((feed.body.data as Json[]).map((c) => c.seq), [1, 2, 4], "the feed shows bob what he was granted");

    t.equal((await call(`/v1/workspaces/${ws.id}/members/${bob.id}`, { user: ann, method: "DELETE" })).status, 204);
    t.match(await live.next((m) => m.type === "unsubscribed", 3000), { type: "unsubscribed", channel }, "removal from the workspace drops the subscription");
    live.send({ type: "subscribe", channel });
    t.match(await live.next((m) => m.type === "error" && m.channel === channel, 3000), { type: "error" }, "and a new one is refused");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: bob }), { status: 404 }, "as is the drive");
  }),
);
