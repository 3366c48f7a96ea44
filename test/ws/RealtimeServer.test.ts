/** Realtime endpoint rules (conventions.md, Realtime): authentication at upgrade, authorized subscriptions, ordered events, recovery, revocation. */
import t from "tap";
import { Effect } from "effect";
import { forEachDialect } from "../support/databases.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { makeEnvelope } from "../worker/fixtures.js";
import { startRealtime, TestClient, type RefusedUpgrade } from "./fixtures.js";

const refusal = async (promise: Promise<TestClient>): Promise<RefusedUpgrade> => {
  try {
    const client = await promise;
    client.close();
    throw new Error("the upgrade was accepted");
  } catch (error) {
    return error as RefusedUpgrade;
  }
};

forEachDialect(t, "an upgrade without a token, with a bad token or a revoked one is refused with 401 problem+json", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set());
  const missing = await refusal(TestClient.connect(realtime.url));
  t.equal(missing.status, 401);
  t.equal(missing.contentType, "application/problem+json");
  t.match(missing.body, { status: 401, code: "authentication_required", type: String, title: String, detail: String });
  const bad = await refusal(TestClient.connect(realtime.url, { token: "forged" }));
  t.match(bad, { status: 401, body: { code: "invalid_token" } });
  t.notOk(JSON.stringify(bad.body).includes("forged"), "the token is not echoed");
  const expired = await refusal(TestClient.connect(realtime.url, { token: "token-expired" }));
  t.match(expired, { status: 401, body: { code: "token_expired" } }, "a verifier's Unauthorized code is kept");
  await realtime.bumpEpoch("carol");
  const revoked = await refusal(TestClient.connect(realtime.url, { token: "token-carol" }));
  t.match(revoked, { status: 401, body: { code: "token_revoked" } });
  const header = await TestClient.connect(realtime.url, { token: "token-alice" });
  const query = await TestClient.connect(realtime.url, { token: "token-bob", query: true });
  t.pass("a valid token in the header or in ?access_token= is accepted");
  header.close();
  query.close();
});

forEachDialect(t, "an allowed subscription answers subscribed at the head, then events arrive in offset order without duplicates", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["alice:p1"]));
  await realtime.publishEvent("project:p1", makeEnvelope());
  await realtime.publishEvent("project:p1", makeEnvelope());
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.close());
  client.send({ type: "subscribe", channel: "project:p1" });
  t.same(await client.next((m) => m.type === "subscribed"), { type: "subscribed", channel: "project:p1", offset: 2 });
  const live = [makeEnvelope(), makeEnvelope(), makeEnvelope()];
  for (const event of live) await realtime.publishEvent("project:p1", event);
  // Stale and repeated notices must not produce duplicates.
  await realtime.publish({ type: "message", channel: "project:p1", offset: 3 });
  await realtime.publish({ type: "message", channel: "project:p1", offset: 1 });
  const last = makeEnvelope();
  await realtime.publishEvent("project:p1", last);
  await client.next((m) => m.type === "event" && m.event.id === last.id);
  t.same(client.events("project:p1"), [...live, last].map((e, i) => [i + 3, e.id]));
  const event = client.received.find((m) => m.type === "event")!;
  t.same(Object.keys(event).sort(), ["channel", "event", "offset", "type"]);
  t.equal(event.event.aggregate_version, 1, "the envelope carries the aggregate version");

  client.send({ type: "unsubscribe", channel: "project:p1" });
  t.same(await client.next((m) => m.type === "unsubscribed"), { type: "unsubscribed", channel: "project:p1", reason: "client" });
});

forEachDialect(t, "a refused or unknown channel answers not_found, and malformed messages answer HTTP's codes (malformed_json, validation_failed)", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["bob:secret"]));
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.close());
  client.send({ type: "subscribe", channel: "project:secret" });
  t.same(await client.next((m) => m.channel === "project:secret"), { type: "error", channel: "project:secret", code: "not_found" });
  client.send({ type: "subscribe", channel: "order:1" });
  t.same(await client.next((m) => m.channel === "order:1"), { type: "error", channel: "order:1", code: "not_found" });
  client.send("{not json");
  t.match(await client.next((m) => m.type === "error" && m.channel === undefined), { type: "error", code: "malformed_json" });
  client.send({ type: "subscribe" });
  t.match(await client.next((m) => m.type === "error" && m.channel === undefined && m.code !== "malformed_json"), { type: "error", code: "validation_failed" });
  client.send({ type: "subscribe", channel: "project" });
  t.match(await client.next((m) => m.channel === "project"), { type: "error", code: "validation_failed", detail: "channel must be <kind>:<id>" });
  await realtime.publishEvent("project:secret", makeEnvelope());
  // Asking again with `since` is refused the same way, and sends none of the channel's events.
  client.send({ type: "subscribe", channel: "project:secret", since: 0 });
  await client.next(() => client.received.filter((x) => x.channel === "project:secret").length === 2);
  t.same(client.received.filter((x) => x.channel === "project:secret").map((x) => x.type), ["error", "error"]);
});

forEachDialect(t, "since recovers the events missed while disconnected, and a trimmed log answers resync", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["alice:p1", "alice:p2"]));
  const events = [makeEnvelope(), makeEnvelope(), makeEnvelope()];
  for (const event of events) await realtime.publishEvent("project:p1", event);
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.close());
  client.send({ type: "subscribe", channel: "project:p1", since: 1 });
  t.same(await client.next((m) => m.type === "subscribed"), { type: "subscribed", channel: "project:p1", offset: 3 });
  await client.next((m) => m.type === "event" && m.offset === 3);
  t.same(client.events("project:p1"), [[2, events[1]!.id], [3, events[2]!.id]]);

  for (let i = 0; i < 3; i++) await realtime.publishEvent("project:p2", makeEnvelope());
  const trimmed = await realtime.runtime.runPromise(Effect.flatMap(ChannelLog, (log) => log.trim(new Date(Date.now() + 60_000))));
  t.ok(trimmed >= 2, "the older messages were trimmed");
  client.send({ type: "subscribe", channel: "project:p2", since: 0 });
  t.same(await client.next((m) => m.type === "resync"), { type: "resync", channel: "project:p2", offset: 3 });
  const next = makeEnvelope();
  await realtime.publishEvent("project:p2", next);
  await client.next((m) => m.type === "event" && m.channel === "project:p2");
  t.same(client.events("project:p2"), [[4, next.id]], "after a resync, events continue from the head");
});

forEachDialect(t, "access_changed drops a subscription the user lost within a second, and keeps the others", async (t, db) => {
  const memberships = new Set(["alice:p1", "alice:p2"]);
  const realtime = await startRealtime(t, db, memberships);
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.close());
  client.send({ type: "subscribe", channel: "project:p1" });
  client.send({ type: "subscribe", channel: "project:p2" });
  await client.next((m) => m.type === "subscribed" && m.channel === "project:p2");
  memberships.delete("alice:p1");
  const started = Date.now();
  await realtime.publish({ type: "access_changed", userId: "alice" });
  t.same(await client.next((m) => m.type === "unsubscribed", 1_000), { type: "unsubscribed", channel: "project:p1", reason: "access_revoked" });
  const elapsed = Date.now() - started;
  t.ok(elapsed < 1_000, `dropped within a second (${elapsed} ms)`);
  const kept = makeEnvelope();
  await realtime.publishEvent("project:p1", makeEnvelope());
  await realtime.publishEvent("project:p2", kept);
  await client.next((m) => m.type === "event" && m.channel === "project:p2");
  t.same(client.events("project:p1"), [], "nothing more arrives on the dropped channel");
  t.same(client.events("project:p2"), [[1, kept.id]]);
});

// Spec (projects, Authentication 1 and 4): authorization "applies on every route and on every
// socket subscription", and "a cached authorization decision is trusted only for a very short
// session epoch". The access notice is a hint published after commit; when it is lost, the
// periodic re-check still drops the subscription and closes a revoked token's socket.
forEachDialect(t, "a subscription whose access notice was lost is re-checked and dropped within recheckMs", async (t, db) => {
  const memberships = new Set(["alice:p1", "alice:p2", "bob:p1"]);
  const realtime = await startRealtime(t, db, memberships, { recheckMs: 200 });
  const alice = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => alice.close());
  alice.send({ type: "subscribe", channel: "project:p1" });
  alice.send({ type: "subscribe", channel: "project:p2" });
  await alice.next((m) => m.type === "subscribed" && m.channel === "project:p2");
  const bob = await TestClient.connect(realtime.url, { token: "token-bob" });
  bob.send({ type: "subscribe", channel: "project:p1" });
  await bob.next((m) => m.type === "subscribed" && m.channel === "project:p1");
  // No access_changed notice is published for either change.
  memberships.delete("alice:p1");
  await realtime.bumpEpoch("bob");
  t.same(await alice.next((m) => m.type === "unsubscribed", 2_000), { type: "unsubscribed", channel: "project:p1", reason: "access_revoked" });
  t.match(await bob.closed, { code: 4401, reason: "token_revoked" }, "a revoked token's socket is closed without a notice");
  const kept = makeEnvelope();
  await realtime.publishEvent("project:p2", kept);
  await alice.next((m) => m.type === "event" && m.channel === "project:p2");
  t.same(alice.events("project:p2"), [[1, kept.id]], "the subscription still allowed stays");
});

forEachDialect(t, "an epoch bump closes the user's sockets with 4401", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["bob:p1"]));
  const bob = await TestClient.connect(realtime.url, { token: "token-bob" });
  const dave = await TestClient.connect(realtime.url, { token: "token-dave" });
  const alice = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => alice.close());
  await realtime.bumpEpoch("bob");
  await realtime.publish({ type: "access_changed", userId: "bob" });
  t.match(await bob.closed, { code: 4401, reason: "token_revoked" });
  await realtime.bumpEpoch("dave");
  await realtime.publish({ type: "access_changed", userId: "dave" });
  t.match(await dave.closed, { code: 4401 }, "also when the token did not carry its epoch");
  alice.send({ type: "subscribe", channel: "project:zzz" });
  t.match(await alice.next((m) => m.type === "error"), { code: "not_found" }, "other users stay connected");
});

forEachDialect(t, "a socket that stops answering pings is terminated", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["alice:p1"]), { heartbeatMs: 50 });
  const silent = await TestClient.connect(realtime.url, { token: "token-bob", autoPong: false });
  const healthy = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => healthy.close());
  const closed = await silent.closed;
  t.equal(closed.code, 1006, "terminated without a close handshake");
  healthy.send({ type: "subscribe", channel: "project:p1" });
  t.match(await healthy.next((m) => m.type === "subscribed"), { channel: "project:p1" }, "a client that answers pings stays");
});
