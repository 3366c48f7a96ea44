/**
 * Contract kit for the realtime ChannelLog: gapless per-channel offsets, catch-up with
 * `readSince`, and a resync answer once messages a client needs were trimmed.
 */
import { Effect } from "effect";
import { ChannelLog } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import { testEvent } from "./outboxKit.js";
import { runCases, warmUp, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type ChannelLogKitPorts = ChannelLog | Transactions;

const log = <A>(f: (l: ChannelLog) => Effect.Effect<A>) => Effect.flatMap(ChannelLog, f);
const append = (channel: string, id: string) => log((l) => l.append(channel, testEvent(id)));
const offsets = (r: { readonly messages: ReadonlyArray<{ readonly offset: number }> }) => r.messages.map((m) => m.offset);
// Far enough ahead that every message appended by the test counts as old.
const future = () => new Date(Date.now() + 3_600_000);

/** The cases of the channel log kit. */
export const channelLogCases: ReadonlyArray<KitCase<ChannelLogKitPorts>> = [
  {
    name: "channel log: each channel numbers its messages 1, 2, 3 on its own",
    run: async (t, run) => {
      t.equal((await run(append("project:a", "e1"))).offset, 1);
      t.equal((await run(append("project:a", "e2"))).offset, 2);
      t.equal((await run(append("project:b", "e3"))).offset, 1);
      const third = await run(append("project:a", "e4"));
      t.same(third, { channel: "project:a", offset: 3, event: testEvent("e4") });
    },
  },
  {
    name: "channel log: readSince returns the messages after an offset, oldest first, up to the limit",
    run: async (t, run) => {
      for (let i = 1; i <= 5; i++) await run(append("c", `e${i}`));
      const all = await run(log((l) => l.readSince("c", 0, 100)));
      t.same(offsets(all), [1, 2, 3, 4, 5]);
      t.equal(all.resync, false);
      t.same(all.messages[0]?.event, testEvent("e1"));
      t.same(offsets(await run(log((l) => l.readSince("c", 2, 2)))), [3, 4]);
      const caughtUp = await run(log((l) => l.readSince("c", 5, 10)));
      t.same(caughtUp, { messages: [], resync: false });
      t.same(await run(log((l) => l.readSince("unknown", 0, 10))), { messages: [], resync: false });
    },
  },
  {
    name: "channel log: an offset the log never issued asks for a resync",
    run: async (t, run) => {
      await run(append("c", "e1"));
      t.equal((await run(log((l) => l.readSince("c", 7, 10)))).resync, true);
    },
  },
  {
    name: "channel log: head is the newest offset, 0 for a channel never written, unchanged by trimming",
    run: async (t, run) => {
      t.equal(await run(log((l) => l.head("c"))), 0);
      for (const id of ["h1", "h2", "h3"]) await run(append("c", id));
      t.equal(await run(log((l) => l.head("c"))), 3);
      await run(log((l) => l.trim(future())));
      t.equal(await run(log((l) => l.head("c"))), 3, "trimming never moves the head back");
    },
  },
  {
    name: "channel log: trimming keeps each channel's newest message and reports a resync to those behind",
    run: async (t, run) => {
      for (let i = 1; i <= 4; i++) await run(append("c", `e${i}`));
      await run(append("d", "only"));
      t.equal(await run(log((l) => l.trim(future()))), 3);
      const behind = await run(log((l) => l.readSince("c", 1, 10)));
      t.equal(behind.resync, true, "offsets 2 and 3 are gone");
      t.same(offsets(behind), [4]);
      t.same(await run(log((l) => l.readSince("c", 3, 10))), { messages: [{ channel: "c", offset: 4, event: testEvent("e4") }], resync: false });
      t.same(offsets(await run(log((l) => l.readSince("d", 0, 10)))), [1], "a channel's newest message is kept");
      t.equal((await run(append("c", "e5"))).offset, 5, "offsets continue after a trim");
    },
  },
  {
    name: "channel log: trim leaves messages newer than the cut",
    run: async (t, run) => {
      await run(append("c", "e1"));
      await run(append("c", "e2"));
      t.equal(await run(log((l) => l.trim(new Date(0)))), 0);
      t.same(offsets(await run(log((l) => l.readSince("c", 0, 10)))), [1, 2]);
    },
  },
  {
    name: "channel log: an append in a rolled-back transaction leaves no gap",
    run: async (t, run) => {
      await run(append("c", "e1"));
      await run(Effect.exit(Effect.flatMap(Transactions, (tx) => tx.run(Effect.zipRight(append("c", "lost"), Effect.fail("no"))))));
      t.equal((await run(append("c", "e2"))).offset, 2);
      t.same(offsets(await run(log((l) => l.readSince("c", 0, 10)))), [1, 2]);
    },
  },
  {
    name: "channel log: concurrent appends to one channel get gapless distinct offsets",
    run: async (t, run) => {
      await run(warmUp(20, log((l) => l.head("c"))));
      const appended = await run(
        Effect.all(Array.from({ length: 20 }, (_, i) => append("c", `e${i}`)), { concurrency: "unbounded" }),
      );
      t.same(appended.map((m) => m.offset).sort((a, b) => a - b), Array.from({ length: 20 }, (_, i) => i + 1));
      const read = await run(log((l) => l.readSince("c", 0, 100)));
      t.same(offsets(read), Array.from({ length: 20 }, (_, i) => i + 1));
      for (const m of appended) {
        t.same(read.messages[m.offset - 1]?.event, m.event, `offset ${m.offset} holds the event appended with it`);
      }
    },
  },
  {
    name: "channel log: appendMany (when offered) numbers the events in order after the last append, like appends one by one",
    run: async (t, run) => {
      const l = await run(ChannelLog);
      const appendMany = l.appendMany;
      if (appendMany === undefined) {
        t.equal(typeof appendMany, "undefined", "the adapter appends event by event");
        return;
      }
      await run(append("c", "e1"));
      const many = await run(appendMany("c", [testEvent("e2"), testEvent("e3"), testEvent("e4")]));
      t.same(many.map((m) => [m.channel, m.offset, m.event.id]), [["c", 2, "e2"], ["c", 3, "e3"], ["c", 4, "e4"]]);
      t.equal((await run(append("c", "e5"))).offset, 5, "an append continues after the batch");
      t.same((await run(appendMany("other", [testEvent("o1")]))).map((m) => m.offset), [1], "per channel");
      t.same(await run(appendMany("c", [])), []);
      const read = await run(log((x) => x.readSince("c", 0, 10)));
      t.same(read.messages.map((m) => m.event.id), ["e1", "e2", "e3", "e4", "e5"]);
      t.equal(await run(log((x) => x.head("c"))), 5);
    },
  },
  {
    name: "channel log: concurrent appendMany and appends to one channel get gapless distinct offsets",
    run: async (t, run) => {
      const l = await run(ChannelLog);
      const appendMany = l.appendMany;
      if (appendMany === undefined) {
        t.equal(typeof appendMany, "undefined", "the adapter appends event by event");
        return;
      }
      await run(warmUp(8, log((l) => l.head("c"))));
      const batches = await run(
        Effect.all(
          Array.from({ length: 8 }, (_, i) =>
            i % 2 === 0
              ? appendMany("c", [testEvent(`b${i}-1`), testEvent(`b${i}-2`), testEvent(`b${i}-3`)])
              : Effect.map(append("c", `s${i}`), (m) => [m]),
          ),
          { concurrency: "unbounded" },
        ),
      );
      const all = batches.flat();
      t.same(all.map((m) => m.offset).sort((a, b) => a - b), Array.from({ length: 16 }, (_, i) => i + 1), "4 batches of 3 and 4 single appends");
      for (const batch of batches) {
        const offsetsOfBatch = batch.map((m) => m.offset);
        t.same(offsetsOfBatch, offsetsOfBatch.map((_, i) => offsetsOfBatch[0]! + i), "a batch's offsets are consecutive, in order");
      }
      const read = await run(log((x) => x.readSince("c", 0, 100)));
      for (const m of all) t.equal(read.messages[m.offset - 1]?.event.id, m.event.id, `offset ${m.offset} holds its event`);
    },
  },
];

/** Runs the channel log kit against an adapter. */
export const channelLogSuite = (options: SuiteOptions<ChannelLogKitPorts>): Promise<unknown> =>
  runCases(options, channelLogCases);
