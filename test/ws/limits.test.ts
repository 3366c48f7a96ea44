/**
 * Realtime bounds (conventions.md, Realtime and Limits): what one socket may cost the server. A
 * client that stops reading is closed (1013 `slow_consumer`) once its unsent frames pass
 * `maxBufferedBytes`, instead of being buffered for ever; a burst of messages beyond
 * `maxPendingMessages` waiting to be handled, or beyond `messagesPerWindow` per window, is answered
 * `rate_limited`; subscriptions, frame size and shutdown have their documented answers too.
 */
import t from "tap";
import WebSocket from "ws";
import { forEachDialect } from "../support/databases.js";
import { makeEnvelope } from "../worker/fixtures.js";
import { startRealtime, TestClient } from "./fixtures.js";

forEachDialect(t, "a client that stops reading is closed with 1013 slow_consumer once its unsent frames pass maxBufferedBytes", async (t, db) => {
  const maxBufferedBytes = 256 * 1024;
  const realtime = await startRealtime(t, db, new Set(["alice:p1"]), { limits: { maxBufferedBytes } });
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.socket.terminate());
  client.send({ type: "subscribe", channel: "project:p1" });
  await client.next((m) => m.type === "subscribed");
  client.socket.pause();
  // 32 KiB events until the server gives up on the socket; at most 20 MB, well past the kernel's
  // socket buffers and the bound, so a server without the bound keeps the subscription to the end.
  const filler = "x".repeat(32 * 1024);
  let published = 0;
  while (published < 640 && realtime.handle.subscriptionCount() > 0) {
    await realtime.publishEvent("project:p1", makeEnvelope({ data: { filler } }));
    published += 1;
  }
  t.equal(realtime.handle.subscriptionCount(), 0, `the subscription ended after ${published} events instead of buffering them all`);
  if (realtime.handle.subscriptionCount() > 0) return;
  client.socket.resume();
  t.same(await client.closedWithin(), { code: 1013, reason: "slow_consumer" }, "closed with the documented code once the client reads again");
  const offsets = client.events("project:p1").map(([offset]) => offset);
  t.ok(offsets.length < published, `fewer events sent (${offsets.length}) than published (${published})`);
  t.same(offsets, offsets.map((_, i) => i + 1), "what was sent is every offset from the first, in order: resuming with since loses nothing");
});

forEachDialect(t, "messages beyond maxPendingMessages waiting to be handled answer rate_limited, each with one answer, and the socket stays usable", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["alice:p1"]), { limits: { maxPendingMessages: 8 } });
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.close());
  const channel = "project:p1";
  const frames = 200;
  for (let i = 0; i < frames; i++) client.send({ type: i % 2 === 0 ? "subscribe" : "unsubscribe", channel });
  await client.next(() => client.received.filter((m) => m.channel === channel).length >= frames);
  const answers = client.received.filter((m) => m.channel === channel);
  t.equal(answers.length, frames, "one answer per message");
  const limited = answers.filter((m) => m.type === "error" && m.code === "rate_limited");
  t.ok(limited.length > 0, `some messages were refused (${limited.length})`);
  t.ok(limited.length < frames, "not all of them");
  t.match(limited[0], { type: "error", channel, code: "rate_limited", retry_after: Number });
  const before = client.received.length;
  client.send({ type: "subscribe", channel });
  t.match(await client.next((m) => client.received.indexOf(m) >= before && m.channel === channel), { type: "subscribed", channel }, "a later subscribe is served");
});

forEachDialect(t, "messages beyond messagesPerWindow in one window answer rate_limited with retry_after, malformed ones included", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["alice:p1"]), { limits: { messagesPerWindow: 10, messageWindowSeconds: 600 } });
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.close());
  const answers = [];
  for (let i = 0; i < 12; i++) {
    const before = client.received.length;
    client.send(i === 0 ? "{not json" : { type: i % 2 === 0 ? "unsubscribe" : "subscribe", channel: "project:p1" });
    answers.push(await client.next((m) => client.received.indexOf(m) >= before));
  }
  t.same(answers.slice(0, 10).map((m) => m.code ?? m.type), ["malformed_json", "subscribed", "unsubscribed", "subscribed", "unsubscribed", "subscribed", "unsubscribed", "subscribed", "unsubscribed", "subscribed"]);
  t.match(answers[10], { type: "error", code: "rate_limited", channel: "project:p1" });
  t.ok(answers[10]!.retry_after >= 1 && answers[10]!.retry_after <= 600, `retry_after in seconds (${answers[10]!.retry_after})`);
  t.match(answers[11], { type: "error", code: "rate_limited" });
});

forEachDialect(t, "subscriptions beyond maxSubscriptions answer too_many_subscriptions; an unsubscribe frees a place", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["alice:p1", "alice:p2", "alice:p3"]), { limits: { maxSubscriptions: 2 } });
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.close());
  client.send({ type: "subscribe", channel: "project:p1" });
  client.send({ type: "subscribe", channel: "project:p2" });
  client.send({ type: "subscribe", channel: "project:p3" });
  t.same(await client.next((m) => m.channel === "project:p3"), { type: "error", channel: "project:p3", code: "too_many_subscriptions" });
  client.send({ type: "unsubscribe", channel: "project:p1" });
  client.send({ type: "subscribe", channel: "project:p3" });
  t.match(await client.next((m) => m.channel === "project:p3" && m.type === "subscribed"), { type: "subscribed", channel: "project:p3" });
});

forEachDialect(t, "frame rules: a binary frame answers malformed_json, an unknown type validation_failed; a frame over maxPayload closes 1009, text that is not UTF-8 1007, an unmasked frame 1002", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["alice:p1"]), { limits: { maxPayload: 1024 } });
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  t.teardown(() => client.close());
  client.socket.send(Buffer.from(JSON.stringify({ type: "subscribe", channel: "project:p1" })), { binary: true });
  t.match(await client.next((m) => m.type === "error"), { type: "error", code: "malformed_json", detail: "a message must be a JSON text frame" });
  client.send({ type: "publish", channel: "project:p1" });
  t.match(await client.next((m) => m.code === "validation_failed"), { type: "error", code: "validation_failed" });
  t.equal(client.received.filter((m) => m.type === "subscribed").length, 0, "neither subscribed");
  client.send(JSON.stringify({ type: "subscribe", channel: `project:${"p".repeat(2000)}` }));
  t.same(await client.closedWithin(), { code: 1009, reason: "" }, "message too big");

  const notUtf8 = await TestClient.connect(realtime.url, { token: "token-alice" });
  notUtf8.socket.send(Buffer.from([0x7b, 0xff, 0xfe, 0x7d]), { binary: false });
  t.same(await notUtf8.closedWithin(), { code: 1007, reason: "" }, "invalid frame payload data");

  const unmasked = await TestClient.connect(realtime.url, { token: "token-alice" });
  // A client must mask its frames (RFC 6455, 5.1): an unmasked text frame "a", written on the raw socket.
  (unmasked.socket as unknown as { _socket: { write: (bytes: Buffer) => void } })._socket.write(Buffer.from([0x81, 0x01, 0x61]));
  t.same(await unmasked.closedWithin(), { code: 1002, reason: "" }, "protocol error");
});

forEachDialect(t, "the server's shutdown closes every socket with 1001 server_shutdown", async (t, db) => {
  const realtime = await startRealtime(t, db, new Set(["alice:p1"]));
  const client = await TestClient.connect(realtime.url, { token: "token-alice" });
  client.send({ type: "subscribe", channel: "project:p1" });
  await client.next((m) => m.type === "subscribed");
  await realtime.handle.close();
  t.same(await client.closedWithin(), { code: 1001, reason: "server_shutdown" });
  const refused = await TestClient.connect(realtime.url, { token: "token-alice" }).then(
    (c) => (c.close(), "accepted"),
    (error: unknown) => (error as { status?: number }).status ?? "no answer",
  );
  t.not(refused, "accepted", "no new socket is accepted after shutdown");
  t.equal(WebSocket.CLOSED, client.socket.readyState);
});
