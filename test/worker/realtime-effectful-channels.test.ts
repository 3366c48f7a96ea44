/**
 * A module's own realtime consumer whose routing reads state (`channelsForEffect`): its channels
 * are read in the consumer's transaction, so a failing read appends nothing (the inbox record and
 * every append roll back together, and the event is delivered again); each event of a batch goes
 * to the channels its read named, in event order, announced after commit; `handles` picks the
 * events without I/O. SQLite and Postgres.
 */
import t from "tap";
import { Effect } from "effect";
import { forEachDialect } from "../support/databases.js";
import { ChannelLog, RealtimeBus, type RealtimeNotice } from "../../ports/Realtime.js";
import { deliverBatchTo, deliverTo } from "../../adapters/worker/OutboxRelay.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { eventually, makeEnvelope, openRuntime } from "./fixtures.js";

forEachDialect(t, "an effectful channel mapping runs in the consumer's transaction: a failing read appends nothing, a later delivery appends once", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  let failing = true;
  const reads: string[] = [];
  const consumer = realtimeConsumer({
    name: "realtime.test",
    handles: (e) => e.type === "Readable",
    // Appends to one channel, then fails (while `failing`) before naming the others: nothing may stay.
    channelsForEffect: (e) =>
      Effect.gen(function* () {
        reads.push(e.id);
        if (failing) {
          yield* Effect.flatMap(ChannelLog, (log) => log.append("reader:early", e));
          return yield* Effect.fail(new Error("the routing read failed"));
        }
        return [`reader:${e.aggregate_id}`, `reader:${e.aggregate_id}`, "reader:all"];
      }),
  });
  const event = makeEnvelope({ type: "Readable", aggregate_id: "a" });
  t.equal(consumer.handles(event), true);
  t.equal(consumer.handles(makeEnvelope({ type: "Other" })), false, "other events are not handled");
  const failed = await runtime.runPromise(deliverTo(consumer, event));
  t.equal(failed.ok, false, "a failing read fails the delivery");
  const read = (channel: string) => runtime.runPromise(Effect.flatMap(ChannelLog, (log) => log.readSince(channel, 0, 10)));
  t.same((await read("reader:early")).messages, [], "the append made before the failure was rolled back");
  t.same((await read("reader:a")).messages, []);

  failing = false;
  t.same(await runtime.runPromise(deliverTo(consumer, event)), { ok: true });
  t.same(await runtime.runPromise(deliverTo(consumer, event)), { ok: true }, "a redelivery is accepted");
  t.same((await read("reader:a")).messages.map((m) => m.event.id), [event.id], "appended once to a channel the read named twice, and not again on redelivery");
  t.same((await read("reader:all")).messages.map((m) => m.event.id), [event.id]);
  t.equal(reads.length, 2, "the redelivery read nothing (its inbox record says it was handled)");
});

forEachDialect(t, "a batch routed by an effectful mapping: each event to the channels read for it, in order, announced after commit", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const notices: RealtimeNotice[] = [];
  const unlisten = await runtime.runPromise(Effect.flatMap(RealtimeBus, (bus) => bus.listen((n) => notices.push(n))));
  t.teardown(unlisten);
  const consumer = realtimeConsumer({
    name: "realtime.test",
    handles: () => true,
    channelsForEffect: (e) => Effect.succeed(e.aggregate_id === "none" ? [] : [`reader:${e.aggregate_id}`, "reader:all"]),
  });
  const events = [
    makeEnvelope({ aggregate_id: "a", aggregate_version: 1 }),
    makeEnvelope({ aggregate_id: "b", aggregate_version: 1 }),
    makeEnvelope({ aggregate_id: "none", aggregate_version: 1 }),
    makeEnvelope({ aggregate_id: "a", aggregate_version: 2 }),
  ];
  t.same(await runtime.runPromise(deliverBatchTo(consumer, events)), events.map(() => ({ ok: true })));
  const read = async (channel: string) => (await runtime.runPromise(Effect.flatMap(ChannelLog, (log) => log.readSince(channel, 0, 10)))).messages.map((m) => m.event.id);
  t.same(await read("reader:a"), [events[0]!.id, events[3]!.id]);
  t.same(await read("reader:b"), [events[1]!.id]);
  t.same(await read("reader:all"), [events[0]!.id, events[1]!.id, events[3]!.id], "an event the read routes nowhere is on no channel");
  await eventually(() => notices.length >= 3, 5_000, "three notices");
  t.same(
    [...notices].sort((x, y) => JSON.stringify(x).localeCompare(JSON.stringify(y))),
    [
      { type: "message", channel: "reader:a", offset: 2 },
      { type: "message", channel: "reader:all", offset: 3 },
      { type: "message", channel: "reader:b", offset: 1 },
    ],
    "each channel announced once, at its newest offset",
  );
});
