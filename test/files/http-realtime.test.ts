/**
 * The `drive:<workspace id>` channel on the reference server (SQLite and Postgres): members
 * subscribe and receive one DriveChanged per change record, naming only the sequence number (the
 * feed, filtered by access, tells the rest); a member removed from the workspace loses the live
 * subscription at once and cannot subscribe again.
 */
import t from "tap";
import { connectRealtime, startFilesServer, type Json, eachDialect } from "./http-support.js";

t.test("members follow the drive live; a removed member's subscription is dropped", (t) =>
  eachDialect(t, "drive channel", async (t, dialect) => {
    const { server, call, user, workspace } = await startFilesServer(t, dialect);
    const ann = await user();
    const bob = await user();
    const ws = await workspace(ann, [bob]);
    const channel = `drive:${ws.id}`;

    const live = await connectRealtime(server.url, bob, t);
    live.send({ type: "subscribe", channel });
    t.match(await live.next((m) => m.type === "subscribed" || m.type === "error", 3000), { type: "subscribed", channel });

    await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Private", kind: "folder" } });
    await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Plans", kind: "folder" } });
    const second = await live.next((m) => m.type === "event" && (m.event as Json | undefined)?.aggregate_version === 2, 5000);
    t.match(second, { type: "event", channel, event: { type: "DriveChanged", tenant_id: ws.id, aggregate_id: ws.id, data: { seq: 2 } } }, "one announcement per change, in order");
    const events = live.messages.filter((m) => m.type === "event");
    t.same(events.map((m) => (m.event as Json).aggregate_version), [1, 2]);
    t.notOk(JSON.stringify(events).includes("Private"), "an announcement names no node");
    const feed = await call(`/v1/changes?workspace_id=${ws.id}`, { user: bob });
    t.same(feed.body.data, [], "the feed shows bob nothing he was not granted");

    t.equal((await call(`/v1/workspaces/${ws.id}/members/${bob.id}`, { user: ann, method: "DELETE" })).status, 204);
    t.match(await live.next((m) => m.type === "unsubscribed", 3000), { type: "unsubscribed", channel }, "removal from the workspace drops the subscription");
    live.send({ type: "subscribe", channel });
    t.match(await live.next((m) => m.type === "error" && m.channel === channel, 3000), { type: "error" }, "and a new one is refused");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: bob }), { status: 404 }, "as is the drive");
  }),
);
