/**
 * On Postgres, an event published by one server process reaches subscribers of another
 * (LISTEN/NOTIFY), also when the listener lost its connection meanwhile (resume from the log).
 */
import t, { type Test } from "tap";
import { sql } from "kysely";
import { REALTIME_CHANNEL } from "../../adapters/postgres/PostgresRealtimeBus.js";
import { createTestPostgresDatabase } from "../support/databases.js";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { deliverTo } from "../../adapters/worker/OutboxRelay.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { makeEnvelope } from "../worker/fixtures.js";
import { startRealtime, TestClient } from "./fixtures.js";

/** Two server instances on one Postgres database and alice subscribed to project:p1 on the first. */
const twoInstancesWithSubscriber = async (t: Test) => {
  const url = await createTestPostgresDatabase(t);
  const first = await openPostgres({ connectionString: url, max: 4 });
  t.teardown(first.close);
  const second = await openPostgres({ connectionString: url, max: 4 });
  t.teardown(second.close);
  await migrate(first);
  const memberships = new Set(["alice:p1"]);
  const one = await startRealtime(t, first, memberships);
  const two = await startRealtime(t, second, memberships);
  const client = await TestClient.connect(one.url, { token: "token-alice" });
  t.teardown(() => client.close());
  client.send({ type: "subscribe", channel: "project:p1" });
  await client.next((m) => m.type === "subscribed");
  return { url, first, two, memberships, client };
};

t.test("an event published through a second instance reaches a subscriber of the first [postgres]", async (t) => {
  const { two, memberships, client } = await twoInstancesWithSubscriber(t);

  // The second instance's worker path: the realtime consumer appends and announces after commit.
  const consumer = realtimeConsumer({ channelsFor: (e) => [`project:${e.aggregate_id}`] });
  const event = makeEnvelope({ aggregate_id: "p1" });
  t.same(await two.runtime.runPromise(deliverTo(consumer, event)), { ok: true });
  await client.next((m) => m.type === "event");
  t.same(client.events("project:p1"), [[1, event.id]]);

  // Revocation fans out too: the notice is published by the second instance.
  memberships.delete("alice:p1");
  await two.publish({ type: "access_changed", userId: "alice", channel: "project:p1" });
  t.match(await client.next((m) => m.type === "unsubscribed", 1_000), { channel: "project:p1", reason: "access_revoked" });
});

t.test("after the bus reconnects, what was published while it was away is still delivered from the channel log [postgres]", async (t) => {
  const { url, first, two, memberships, client } = await twoInstancesWithSubscriber(t);

  // Cut every realtime LISTEN connection of this database, then publish at once: the notice is
  // sent while the first instance is not listening, so only the resume after its reconnection
  // (the log is the truth) can deliver the event.
  const database = new URL(url).pathname.slice(1);
  const cut = await sql<{ cut: boolean }>`
    SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
    WHERE datname = ${database} AND query ILIKE ${`LISTEN%${REALTIME_CHANNEL}%`}`.execute(first.db);
  t.ok(cut.rows.length >= 2 && cut.rows.every((r) => r.cut), "both instances' listeners were cut");
  const consumer = realtimeConsumer({ channelsFor: (e) => [`project:${e.aggregate_id}`] });
  const event = makeEnvelope({ aggregate_id: "p1" });
  t.same(await two.runtime.runPromise(deliverTo(consumer, event)), { ok: true });
  await client.next((m) => m.type === "event", 10_000);
  t.same(client.events("project:p1"), [[1, event.id]], "delivered exactly once, in order");

  // A revocation announced while the bus was away is applied on resume too.
  memberships.delete("alice:p1");
  const cutAgain = await sql<{ cut: boolean }>`
    SELECT pg_terminate_backend(pid) AS cut FROM pg_stat_activity
    WHERE datname = ${database} AND query ILIKE ${`LISTEN%${REALTIME_CHANNEL}%`}`.execute(first.db);
  t.ok(cutAgain.rows.length >= 1);
  await two.publish({ type: "access_changed", userId: "alice", channel: "project:p1" });
  t.match(await client.next((m) => m.type === "unsubscribed", 10_000), { channel: "project:p1", reason: "access_revoked" });
});
