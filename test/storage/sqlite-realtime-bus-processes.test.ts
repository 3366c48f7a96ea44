/**
 * RealtimeBus contract ("receives every notice published by any process") on a SQLite file shared
 * by several processes: a worker or a one-off command beside the server writes its notices to the
 * file in its transaction, and the server's bus reads them. Two handles on one file stand for the
 * two processes (each bus has its own origin and emitter, as in another process).
 */
import { Effect } from "effect";
import t from "tap";
import { makeTransactions } from "../../adapters/sql/Transactions.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { openSqlite } from "../../adapters/sqlite/openSqlite.js";
import { sqliteRealtimeBus } from "../../adapters/sqlite/SqliteRealtimeBus.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { RealtimeNotice } from "../../ports/Realtime.js";
import { createTestSqliteFile, type HasTeardown } from "../support/databases.js";

const notice = (offset: number): RealtimeNotice => ({ type: "message", channel: "project:p1", offset });

/** A migrated SQLite file opened twice: the worker's handle shares its notices, the server's watches the file. */
const twoProcesses = async (t: HasTeardown) => {
  const filename = createTestSqliteFile(t);
  const worker = await openSqlite({ filename, shareRealtimeNotices: true, watchOtherProcesses: true });
  t.teardown(worker.close);
  await migrate(worker, []);
  const server = await openSqlite({ filename, watchOtherProcesses: true });
  t.teardown(server.close);
  return { filename, worker, server };
};

/** Collects notices; `next(n)` resolves once `n` have arrived, or fails after `ms`. */
const collector = () => {
  const received: RealtimeNotice[] = [];
  return {
    received,
    onNotice: (n: RealtimeNotice) => void received.push(n),
    next: async (count: number, ms = 3_000): Promise<void> => {
      const until = Date.now() + ms;
      while (received.length < count) {
        if (Date.now() > until) throw new Error(`${received.length} of ${count} notices after ${ms} ms`);
        await new Promise((resolve) => setTimeout(resolve, 5));
      }
    },
  };
};

/** The notices written to the file. */
const noticeRows = (db: SqlDatabase): Promise<number> =>
  db.db
    .selectFrom("realtime_notices")
    .select((eb) => eb.fn.countAll().as("n"))
    .executeTakeFirstOrThrow()
    .then((row) => Number(row.n));

t.test("a notice another process commits reaches the server's listener; a rolled-back one never does", async (t) => {
  const { worker, server } = await twoProcesses(t);
  const workerBus = await worker.realtimeBus();
  const serverBus = await server.realtimeBus();
  t.teardown(() => Promise.all([workerBus.close(), serverBus.close()]));
  const seen = collector();
  await Effect.runPromise(serverBus.listen(seen.onNotice));
  const tx = makeTransactions(worker);
  await Effect.runPromise(Effect.exit(tx.run(Effect.zipRight(workerBus.publish(notice(99)), Effect.fail("rolled back")))));
  await Effect.runPromise(tx.run(workerBus.publish(notice(1))));
  await Effect.runPromise(workerBus.publish({ type: "access_changed", userId: "u1" }));
  await seen.next(2);
  t.same(seen.received, [notice(1), { type: "access_changed", userId: "u1" }], "in commit order, without the rolled-back notice");
});

t.test("a process hears its own shared notice once", async (t) => {
  const { worker, server } = await twoProcesses(t);
  const workerBus = await worker.realtimeBus();
  const serverBus = await server.realtimeBus();
  t.teardown(() => Promise.all([workerBus.close(), serverBus.close()]));
  const own = collector();
  const other = collector();
  await Effect.runPromise(workerBus.listen(own.onNotice));
  await Effect.runPromise(serverBus.listen(other.onNotice));
  await Effect.runPromise(workerBus.publish(notice(1)));
  await Effect.runPromise(workerBus.publish(notice(2)));
  await other.next(2);
  // The server has read both rows; the worker's own read of them (by its poll or watch) must add nothing.
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.same(own.received, [notice(1), notice(2)]);
});

t.test("without a watch, another process's notices arrive by the poll", async (t) => {
  const { filename, worker, server } = await twoProcesses(t);
  const workerBus = await worker.realtimeBus();
  const polled = sqliteRealtimeBus(server, { filename, share: false, watch: false, pollMs: 50 });
  t.teardown(() => Promise.all([workerBus.close(), polled.close()]));
  const seen = collector();
  await Effect.runPromise(polled.listen(seen.onNotice));
  await Effect.runPromise(workerBus.publish(notice(7)));
  await seen.next(1);
  t.same(seen.received, [notice(7)]);
});

t.test("a process that does not share writes nothing to the file, and its notices stay its own", async (t) => {
  const { worker, server } = await twoProcesses(t);
  const workerBus = await worker.realtimeBus();
  const serverBus = await server.realtimeBus();
  t.teardown(() => Promise.all([workerBus.close(), serverBus.close()]));
  const there = collector();
  const here = collector();
  await Effect.runPromise(workerBus.listen(there.onNotice));
  await Effect.runPromise(serverBus.listen(here.onNotice));
  await Effect.runPromise(serverBus.publish(notice(3)));
  await here.next(1);
  await new Promise((resolve) => setTimeout(resolve, 400));
  t.equal(await noticeRows(server), 0, "no row written");
  t.same(there.received, [], "the other process hears nothing");
});

t.test("a sharing process deletes its old notices", async (t) => {
  const { filename, worker } = await twoProcesses(t);
  // Every notice counts as old at once: the trim on the 256th publish deletes all rows.
  const bus = sqliteRealtimeBus(worker, { filename, share: true, watch: false, keepMs: -60_000 });
  t.teardown(() => bus.close());
  for (let i = 1; i <= 255; i++) await Effect.runPromise(bus.publish(notice(i)));
  t.equal(await noticeRows(worker), 255, "kept until the trim");
  await Effect.runPromise(bus.publish(notice(256)));
  t.equal(await noticeRows(worker), 0, "deleted by the writer's trim");
});
