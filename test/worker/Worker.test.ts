/** Worker rules: the relay and job loops run until stopped; realtime events reach the channel log and the bus after commit. */
import t from "tap";
import { Effect } from "effect";
import { forEachDialect } from "../support/databases.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { Jobs } from "../../ports/Jobs.js";
import { ChannelLog, RealtimeBus, type RealtimeNotice } from "../../ports/Realtime.js";
import type { Consumer } from "../../adapters/worker/Consumer.js";
import { deliverTo } from "../../adapters/worker/OutboxRelay.js";
import { realtimeConsumer } from "../../adapters/worker/RealtimeConsumer.js";
import { startWorker } from "../../adapters/worker/Worker.js";
import { eventually, makeEnvelope, openRuntime } from "./fixtures.js";

forEachDialect(t, "a started worker relays events and runs due jobs until it is stopped", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const seen: string[] = [];
  const ranJobs: unknown[] = [];
  const recorder: Consumer = { name: "recorder", handles: () => true, handle: (e) => Effect.sync(() => void seen.push(e.id)) };
  const worker = startWorker({
    runtime,
    consumers: [recorder],
    jobHandlers: [{ kind: "ping", run: (job) => Effect.sync(() => void ranJobs.push(job.payload)) }],
    pollMs: 20,
    batchSize: 10,
  });
  const events = [makeEnvelope(), makeEnvelope()];
  await runtime.runPromise(Effect.flatMap(Transactions, (tx) => tx.run(Effect.flatMap(Outbox, (o) => o.append(events)))));
  await runtime.runPromise(Effect.flatMap(Jobs, (jobs) => jobs.schedule({ kind: "ping", payload: { n: 1 }, runAt: new Date() })));
  await eventually(() => seen.length === 2 && ranJobs.length === 1, 10_000, "events and job");
  await worker.stop();
  await worker.stop(); // stopping twice is harmless
  t.same(seen, events.map((e) => e.id));
  t.same(ranJobs, [{ n: 1 }]);
});

forEachDialect(t, "the realtime consumer appends each event to its channels once and announces the offsets after commit", async (t, db) => {
  const { runtime, close } = await openRuntime(db);
  t.teardown(close);
  const notices: RealtimeNotice[] = [];
  const unlisten = await runtime.runPromise(Effect.flatMap(RealtimeBus, (bus) => bus.listen((n) => notices.push(n))));
  t.teardown(unlisten);
  // The mapping names one channel twice: the event must still appear once on it.
  const consumer = realtimeConsumer({ channelsFor: (e) => [`project:${e.aggregate_id}`, `project:${e.aggregate_id}`, "tenant:t1"] });
  const first = makeEnvelope({ aggregate_id: "p1", aggregate_version: 1 });
  const second = makeEnvelope({ aggregate_id: "p1", aggregate_version: 2 });
  t.same(await runtime.runPromise(deliverTo(consumer, first)), { ok: true });
  t.same(await runtime.runPromise(deliverTo(consumer, second)), { ok: true });
  t.same(await runtime.runPromise(deliverTo(consumer, second)), { ok: true }, "a redelivery is accepted");
  const page = await runtime.runPromise(Effect.flatMap(ChannelLog, (log) => log.readSince("project:p1", 0, 10)));
  t.same(page.messages.map((m) => [m.offset, m.event.id]), [[1, first.id], [2, second.id]], "the redelivery appended nothing");
  await eventually(() => notices.length >= 4, 5_000, "four notices");
  const sorted = [...notices].sort((a, b) => JSON.stringify(a).localeCompare(JSON.stringify(b)));
  t.same(sorted, [
    { type: "message", channel: "project:p1", offset: 1 },
    { type: "message", channel: "project:p1", offset: 2 },
    { type: "message", channel: "tenant:t1", offset: 1 },
    { type: "message", channel: "tenant:t1", offset: 2 },
  ]);
  t.equal(consumer.handles(makeEnvelope()), true, "events with channels are handled");
  const silent = realtimeConsumer({ channelsFor: () => [] });
  t.equal(silent.handles(first), false, "events with no channel are not handled");
});
