/**
 * Fan-out is paid once per channel, not once per socket: the subscribers of a channel woken by
 * one notice share one read of the channel log and one serialization of each message.
 */
import t from "tap";
import { Effect } from "effect";
import { forEachDialect } from "../support/databases.js";
import { makeEnvelope } from "../worker/fixtures.js";
import { startRealtime, TestClient } from "./fixtures.js";

forEachDialect(t, "subscribers of one channel woken by one notice share one channel-log read", async (t, db) => {
  let reads = 0;
  const instance = await startRealtime(t, db, new Set(["alice:p1", "bob:p1", "carol:p1"]), {
    wrapLog: (log) => ({ ...log, readSince: (...args) => Effect.zipRight(Effect.sync(() => void (reads += 1)), log.readSince(...args)) }),
  });
  const clients = await Promise.all(["token-alice", "token-bob", "token-carol"].map((token) => TestClient.connect(instance.url, { token })));
  t.teardown(() => clients.forEach((c) => c.close()));
  for (const client of clients) {
    client.send({ type: "subscribe", channel: "project:p1" });
    await client.next((m) => m.type === "subscribed");
  }
  // Let the catch-up reads that follow each subscribe finish before counting.
  await new Promise((resolve) => setTimeout(resolve, 100));
  reads = 0;
  const event = makeEnvelope({ aggregate_id: "p1" });
  await instance.publishEvent("project:p1", event);
  const received = await Promise.all(clients.map((client) => client.next((m) => m.type === "event")));
  for (const message of received) t.same(message, { type: "event", channel: "project:p1", offset: 1, event }, "every subscriber gets the same frame");
  t.equal(reads, 1, "one log read for three subscribers at the same offset");
});
