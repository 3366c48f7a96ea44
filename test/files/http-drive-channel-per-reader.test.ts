/**
 * A member is told on their own drive channel (`drive:<workspace id>:<user id>`) only of the
 * changes they can see, as `GET /v1/changes` filters them (spec: Authorization applies on every
 * socket subscription; files known gap "every member is told of every change"): a change in a
 * folder they have no access to announces nothing to them, one in a folder they were granted
 * does; another tenant never hears of the workspace; nobody subscribes to another user's drive
 * channel, and the old workspace-wide `drive:<workspace id>` is refused. SQLite and Postgres.
 */
import t from "tap";
import { connectRealtime, startFilesServer, type Json, eachDialect } from "./http-support.js";

t.test("a member is told only of the drive changes they can see, on their own drive channel", (t) =>
  eachDialect(t, "per-reader drive channel", async (t, dialect) => {
    const { server, call, user, workspace } = await startFilesServer(t, dialect);
    const ann = await user();
    const bob = await user();
    const eve = await user();
    const ws = await workspace(ann, [bob]);
    const other = await workspace(eve);
    const shared = String((await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Shared", kind: "folder" } })).body.id);
    const hidden = String((await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Hidden", kind: "folder" } })).body.id);
    t.equal((await call(`/v1/nodes/${shared}/permissions`, { user: ann, body: { user_id: bob.id, role: "viewer" } })).status, 200, "bob is granted the shared folder");

    const bobLive = await connectRealtime(server.url, bob, t);
    const bobChannel = `drive:${ws.id}:${bob.id}`;
    bobLive.send({ type: "subscribe", channel: bobChannel, since: 0 });
    t.match(await bobLive.next((m) => m.channel === bobChannel && (m.type === "subscribed" || m.type === "error"), 3000), { type: "subscribed" }, "bob subscribes to his own drive channel");
    const eveLive = await connectRealtime(server.url, eve, t);
    const eveChannel = `drive:${other.id}:${eve.id}`;
    eveLive.send({ type: "subscribe", channel: eveChannel, since: 0 });
    t.match(await eveLive.next((m) => m.channel === eveChannel && (m.type === "subscribed" || m.type === "error"), 3000), { type: "subscribed" }, "eve follows her own workspace's drive");

    const inHidden = await call("/v1/nodes", { user: ann, body: { parent_id: hidden, name: "Secret plans", kind: "folder" } });
    const inShared = await call("/v1/nodes", { user: ann, body: { parent_id: shared, name: "Minutes", kind: "folder" } });
    t.equal(inHidden.status, 201);
    t.equal(inShared.status, 201);
    const annFeed = (await call(`/v1/changes?workspace_id=${ws.id}`, { user: ann })).body.data as Json[];
    const seqOf = (nodeId: string) => annFeed.find((c) => c.node_id === nodeId)?.seq;
    const hiddenSeq = seqOf(String(inHidden.body.id));
    const sharedSeq = seqOf(String(inShared.body.id));
    t.ok(typeof hiddenSeq === "number" && typeof sharedSeq === "number" && hiddenSeq < sharedSeq, "both changes are in the log, the hidden one first");

    await bobLive.next((m) => m.type === "event" && (m.event as Json | undefined)?.aggregate_version === sharedSeq, 10_000);
    const announced = bobLive.messages.filter((m) => m.type === "event").map((m) => (m.event as { data: { seq: number } }).data.seq);
    const bobChanges = (await call(`/v1/changes?workspace_id=${ws.id}`, { user: bob })).body.data as Json[];
    const bobFeed = bobChanges.map((c) => c.seq as number);
    const grantSeq = bobChanges.find((c) => c.type === "node.entered_view" && c.node_id === shared)?.seq as number;
    t.ok(announced.includes(sharedSeq as number), "bob is told of the change in the folder he can see");
    t.notOk(announced.includes(hiddenSeq as number), "bob is not told of the change in the folder he cannot see");
    // A change consumed before bob's grant was not his to hear of then (the grant's entered-view change tells him).
    t.ok(announced.every((seq) => bobFeed.includes(seq)), "bob is told only of changes his feed shows him");
    t.ok(bobFeed.filter((seq) => seq >= grantSeq).every((seq) => announced.includes(seq)), "and of every one since his grant");
    t.ok(bobLive.messages.filter((m) => m.type === "event").every((m) => m.channel === bobChannel), "on his own channel");

    // Revoked: bob is told of his left-view change (his feed shows it), then of nothing in the folder.
    t.equal((await call(`/v1/nodes/${shared}/permissions/${bob.id}`, { user: ann, method: "DELETE" })).status, 204);
    const afterRevoke = await call("/v1/nodes", { user: ann, body: { parent_id: shared, name: "After", kind: "folder" } });
    const own = await call("/v1/nodes", { user: bob, body: { parent_id: ws.root, name: "Bob's", kind: "folder" } });
    t.equal(own.status, 201, "bob creates a folder of his own at the root");
    const annLatest = (await call(`/v1/changes?workspace_id=${ws.id}`, { user: ann })).body.data as Json[];
    const afterSeq = annLatest.find((c) => c.node_id === afterRevoke.body.id)?.seq as number;
    const bobLatest = (await call(`/v1/changes?workspace_id=${ws.id}`, { user: bob })).body.data as Json[];
    const ownSeq = bobLatest.find((c) => c.node_id === own.body.id)?.seq as number;
    t.ok(afterSeq < ownSeq, "the change in the revoked folder comes before bob's own");
    await bobLive.next((m) => m.type === "event" && (m.event as Json | undefined)?.aggregate_version === ownSeq, 10_000);
    const later = bobLive.messages.filter((m) => m.type === "event").map((m) => (m.event as { data: { seq: number } }).data.seq).filter((seq) => seq > (sharedSeq as number));
    const leftSeq = bobLatest.find((c) => c.type === "node.left_view")?.seq;
    t.ok(typeof leftSeq === "number", "the revocation is in bob's feed as a left-view change");
    t.same(later, [leftSeq, ownSeq], "bob is told of his left-view change and of his own folder");
    t.notOk(later.includes(afterSeq), "not of the change in the folder he lost");

    // Eve's channel (another tenant) and her refused subscriptions to the workspace's channels.
    t.same(eveLive.messages.filter((m) => m.type === "event"), [], "another tenant is told nothing of the workspace");
    for (const channel of [`drive:${ws.id}:${eve.id}`, `drive:${ws.id}:${bob.id}`, `drive:${ws.id}`]) {
      eveLive.send({ type: "subscribe", channel });
      t.match(await eveLive.next((m) => m.channel === channel && (m.type === "subscribed" || m.type === "error"), 3000), { type: "error", code: "not_found" }, `another tenant may not follow ${channel}`);
    }
    // Bob may follow only his own channel of the workspace.
    for (const channel of [`drive:${ws.id}:${ann.id}`, `drive:${ws.id}`]) {
      bobLive.send({ type: "subscribe", channel });
      t.match(await bobLive.next((m) => m.channel === channel && (m.type === "subscribed" || m.type === "error"), 3000), { type: "error", code: "not_found" }, `a member may not follow ${channel}`);
    }
  }),
);
