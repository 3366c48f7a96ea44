/**
 * The relay works in batches: a pass claims many messages, applies each consumer's share in one
 * transaction (one inbox statement for the batch; when an event fails, the batch is redone one
 * transaction per event, so a failing event undoes only itself), and marks the delivered
 * messages in one statement.
 */
import t from "tap";
import { Effect, Layer } from "effect";
import { forEachDialect } from "../support/databases.js";
import { runQuery } from "../../adapters/sql/runQuery.js";
import { inTransaction, makeTransactions } from "../../adapters/sql/Transactions.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { makeSqlOutboxRelayStore } from "../../adapters/sql/SqlOutbox.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { Outbox, OutboxRelayStore } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import type { Consumer } from "../../adapters/worker/Consumer.js";
import { relayOnce, type RelayOptions } from "../../adapters/worker/OutboxRelay.js";
import { eventually, makeEnvelope, openRuntime } from "./fixtures.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { startReferenceServer, testConfig } from "../hosts/support.js";

const options: RelayOptions = { workerId: "batch-test", batchSize: 50, leaseMs: 30_000 };

const append = (events: ReadonlyArray<EventEnvelope>) =>
  Effect.flatMap(Transactions, (tx) => tx.run(Effect.flatMap(Outbox, (outbox) => outbox.append(events))));

/** Counts top-level transactions (a nested run joins the open one and is not counted). */
const countingTransactions = (db: SqlDatabase) => {
  const counter = { transactions: 0, markDeliveredMany: 0, markDelivered: 0 };
  const tx = makeTransactions(db);
  const counted = {
    ...tx,
    run: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(inTransaction(db), (open) => {
        if (!open) counter.transactions += 1;
        return tx.run(effect);
      }),
  };
  const store = makeSqlOutboxRelayStore(db, featuresFor(db));
  const layer = Layer.mergeAll(
    Layer.succeed(Transactions, counted),
    Layer.succeed(OutboxRelayStore, {
      ...store,
      markDelivered: (id: string) => Effect.zipRight(Effect.sync(() => void (counter.markDelivered += 1)), store.markDelivered(id)),
      markDeliveredMany: (ids: ReadonlyArray<string>) =>
        Effect.zipRight(Effect.sync(() => void (counter.markDeliveredMany += 1)), store.markDeliveredMany!(ids)),
    }),
  );
  return { counter, layer };
};

/** A consumer that writes one row per event in its transaction, and fails after writing for `failing`. */
const rowWriter = (db: SqlDatabase, name: string, failing: ReadonlySet<string>): Consumer => ({
  name,
  handles: () => true,
  handle: (event) =>
    Effect.gen(function* () {
      yield* runQuery(db, (ex) => ex.insertInto("applied").values({ consumer: name, event_id: event.id }).execute());
      if (failing.has(event.id)) return yield* Effect.fail(new Error(`${name} refuses ${event.id}`));
    }),
});

const appliedRows = (db: SqlDatabase) =>
  db.db.selectFrom("applied").select(["consumer", "event_id"]).orderBy("consumer").orderBy("event_id").execute();
const inboxRows = (db: SqlDatabase) => db.db.selectFrom("inbox").select(["consumer", "event_id"]).orderBy("consumer").orderBy("event_id").execute();

forEachDialect(t, "a relay pass costs one transaction per consumer for the whole batch, and one statement marks it delivered", async (t, db) => {
  await db.db.schema.createTable("applied").addColumn("consumer", "text").addColumn("event_id", "text").execute();
  const { counter, layer } = countingTransactions(db);
  const { runtime, close } = await openRuntime(db, layer);
  t.teardown(close);
  const events = Array.from({ length: 20 }, () => makeEnvelope());
  await runtime.runPromise(append(events));
  const consumers = [rowWriter(db, "projection", new Set()), rowWriter(db, "search", new Set())];
  counter.transactions = 0;
  t.same(await runtime.runPromise(relayOnce(consumers, options)), { claimed: 20, delivered: 20, retried: 0, dead: 0 });
  t.equal(counter.transactions, consumers.length, "one transaction per consumer (the claim is one statement, outside any transaction)");
  t.equal(counter.markDeliveredMany, 1, "one statement marks the batch delivered");
  t.equal(counter.markDelivered, 0);
  t.equal((await appliedRows(db)).length, 40, "every consumer applied every event");
  t.equal((await inboxRows(db)).length, 40);
});

forEachDialect(t, "a failing event in a consumer's batch undoes only its own writes and inbox record; the rest of the batch commits", async (t, db) => {
  await db.db.schema.createTable("applied").addColumn("consumer", "text").addColumn("event_id", "text").execute();
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const events = [makeEnvelope(), makeEnvelope(), makeEnvelope(), makeEnvelope()];
  await runtime.runPromise(append(events));
  const bad = events[1]!.id;
  const consumers = [rowWriter(db, "projection", new Set([bad])), rowWriter(db, "search", new Set())];
  t.same(await runtime.runPromise(relayOnce(consumers, options)), { claimed: 4, delivered: 3, retried: 1, dead: 0 });
  const expected = (name: string, ids: ReadonlyArray<string>) => ids.map((event_id) => ({ consumer: name, event_id }));
  const good = events.map((e) => e.id).filter((id) => id !== bad);
  t.same(await appliedRows(db), [...expected("projection", good), ...expected("search", events.map((e) => e.id))]);
  t.same(await inboxRows(db), [...expected("projection", good), ...expected("search", events.map((e) => e.id))]);
  const outbox = await db.db.selectFrom("outbox").select(["id", "status", "last_error"]).where("id", "=", bad).executeTakeFirstOrThrow();
  t.equal(outbox.status, "pending", "the failed message waits for its retry");
  t.match(outbox.last_error, /projection: Error: projection refuses/);
});

forEachDialect(t, "an after-commit hook registered in a failed savepoint is dropped; registered again later, it runs once after commit", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const { afterCommit } = await import("../../adapters/sql/Transactions.js");
  const tx = makeTransactions(db);
  let ran = 0;
  const hook = afterCommit(db, "wake", () => void (ran += 1));
  await runtime.runPromise(tx.run(Effect.exit(tx.savepoint!(Effect.zipRight(hook, Effect.fail("undone"))))));
  t.equal(ran, 0, "only the failed savepoint registered it: nothing runs after commit");
  await runtime.runPromise(
    tx.run(
      Effect.gen(function* () {
        yield* Effect.exit(tx.savepoint!(Effect.zipRight(hook, Effect.fail("undone"))));
        yield* tx.savepoint!(hook);
        yield* tx.savepoint!(hook);
        t.equal(ran, 0, "nothing runs before the commit");
      }),
    ),
  );
  t.equal(ran, 1, "registered again after the failed savepoint: runs once after commit");
});

t.test("the reference server's Transactions, timed for metrics, keep the savepoints, so its relay delivers a batch in one transaction per consumer", async (t) => {
  const config = await testConfig("sqlite", t);
  const { server } = await startReferenceServer(t, { ...config, workerInProcess: false, metricsEnabled: true });
  const savepoints = await server.core.runtime.runPromise(
    Effect.flatMap(Transactions, (tx) => tx.run(Effect.succeed(tx.savepoint !== undefined))),
  );
  t.equal(savepoints, true, "the port the relay reads offers savepoints");
});

forEachDialect(t, "the realtime consumer appends a batch to each channel in order and announces each channel once, at its newest offset", async (t, db) => {
  const published: Array<{ channel: string; offset: number }> = [];
  const { runtime, bus, close } = await openRuntime(db);
  t.teardown(close);
  await runtime.runPromise(
    bus.listen((notice) => {
      if (notice.type === "message") published.push({ channel: notice.channel, offset: notice.offset });
    }),
  );
  const events = [
    ...Array.from({ length: 5 }, (_, i) => makeEnvelope({ aggregate_id: "p1", aggregate_version: i + 1 })),
    ...Array.from({ length: 3 }, (_, i) => makeEnvelope({ aggregate_id: "p2", aggregate_version: i + 1 })),
  ];
  await runtime.runPromise(append(events));
  const consumer = realtimeConsumer({ channelsFor: (event) => [`project:${event.aggregate_id}`, "all:feed"] });
  t.same(await runtime.runPromise(relayOnce([consumer], options)), { claimed: 8, delivered: 8, retried: 0, dead: 0 });
  const read = (channel: string) => runtime.runPromise(Effect.flatMap(ChannelLog, (l) => l.readSince(channel, 0, 100)));
  t.same((await read("project:p1")).messages.map((m) => m.event.id), events.slice(0, 5).map((e) => e.id), "p1's events in order");
  t.same((await read("project:p2")).messages.map((m) => m.event.id), events.slice(5).map((e) => e.id));
  t.same((await read("all:feed")).messages.map((m) => [m.offset, m.event.id]), events.map((e, i) => [i + 1, e.id]), "a shared channel gets every event once, in event order");
  await eventually(() => published.length >= 3, 5_000, "the notices");
  t.same(
    [...published].sort((a, b) => a.channel.localeCompare(b.channel)),
    [{ channel: "all:feed", offset: 8 }, { channel: "project:p1", offset: 5 }, { channel: "project:p2", offset: 3 }],
    "one notice per channel, at its newest offset",
  );
});
