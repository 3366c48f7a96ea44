/** The RealtimeBus: within one process on SQLite (sqlite-realtime-bus-processes.test.ts: across processes), LISTEN/NOTIFY across pools on Postgres. */
import { Effect } from "effect";
import t from "tap";
import { openPostgres } from "../../adapters/postgres/openPostgres.js";
import { realtimeBus } from "../../adapters/sql/realtimeBus.js";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import type { RealtimeNotice } from "../../ports/Realtime.js";
import { createTestPostgresDatabase, openTestDatabase } from "../support/databases.js";

/** Resolves with the first notice `count` notices, in order. */
const collect = (count: number) => {
  const received: RealtimeNotice[] = [];
  let done!: () => void;
  const all = new Promise<void>((resolve) => (done = resolve));
  const onNotice = (n: RealtimeNotice) => {
    received.push(n);
    if (received.length === count) done();
  };
  return { received, all, onNotice };
};

const notice = (offset: number): RealtimeNotice => ({ type: "message", channel: "project:p1", offset });

t.test("on SQLite a notice reaches every bus of the same database, and not after unlisten", async (t) => {
  const db = await openTestDatabase("sqlite", t);
  const a = await realtimeBus(db);
  const b = await realtimeBus(db);
  t.teardown(() => Promise.all([a.close(), b.close()]));
  const seen = collect(2);
  const stop = await Effect.runPromise(b.listen(seen.onNotice));
  await Effect.runPromise(a.publish(notice(1)));
  await Effect.runPromise(a.publish({ type: "access_changed", userId: "u1" }));
  await seen.all;
  t.same(seen.received, [notice(1), { type: "access_changed", userId: "u1" }]);
  stop();
  await Effect.runPromise(a.publish(notice(2)));
  t.equal(seen.received.length, 2, "an unlistened callback hears nothing more");
});

t.test("on SQLite a notice published in a transaction is delivered once it commits, never after a rollback", async (t) => {
  const db = await openTestDatabase("sqlite", t);
  const bus = await realtimeBus(db);
  t.teardown(() => bus.close());
  const seen = collect(1);
  await Effect.runPromise(bus.listen(seen.onNotice));
  const tx = makeTransactions(db);
  await Effect.runPromise(Effect.exit(tx.run(Effect.zipRight(bus.publish(notice(99)), Effect.fail("rolled back")))));
  t.same(seen.received, [], "a rolled-back transaction's notice is dropped");
  let heardInside = -1;
  await Effect.runPromise(tx.run(Effect.zipRight(bus.publish(notice(1)), Effect.sync(() => (heardInside = seen.received.length)))));
  t.equal(heardInside, 0, "not delivered while the transaction is open");
  t.same(seen.received, [notice(1)], "delivered by the time the transaction's run resolves");
});

t.test("on Postgres a notice published through one pool reaches a listener on another", async (t) => {
  const url = await createTestPostgresDatabase(t);
  const one = await openPostgres({ connectionString: url, max: 2 });
  const two = await openPostgres({ connectionString: url, max: 2 });
  const busOne = await realtimeBus(one);
  const busTwo = await realtimeBus(two);
  t.teardown(async () => {
    await busOne.close();
    await busTwo.close();
    await one.close();
    await two.close();
  });
  const seen = collect(2);
  await Effect.runPromise(busTwo.listen(seen.onNotice));
  const tx = makeTransactions(one);
  // A notice published in a rolled-back transaction is never delivered.
  await Effect.runPromise(Effect.exit(tx.run(Effect.zipRight(busOne.publish(notice(99)), Effect.fail("rolled back")))));
  await Effect.runPromise(tx.run(busOne.publish(notice(1))));
  await Effect.runPromise(busOne.publish(notice(2)));
  await seen.all;
  t.same(seen.received, [notice(1), notice(2)]);
});
