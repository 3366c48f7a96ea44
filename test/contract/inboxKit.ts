/** Contract kit for the consumer Inbox: each (consumer, event) is processed at most once. */
import { Effect } from "effect";
import { Inbox } from "../../ports/Inbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { runCases, warmUp, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type InboxKitPorts = Inbox | Transactions;

const claim = (consumer: string, eventId: string) => Effect.flatMap(Inbox, (i) => i.claim(consumer, eventId));
/** A harmless call (nothing is that old), to warm the adapter up before a race. */
const purgeNothing = Effect.flatMap(Inbox, (i) => i.purgeProcessed(new Date(0), 1));

/** The cases of the inbox kit. */
export const inboxCases: ReadonlyArray<KitCase<InboxKitPorts>> = [
  {
    name: "inbox: the first claim of an event is true and every later one false",
    run: async (t, run) => {
      t.equal(await run(claim("projection", "e1")), true);
      t.equal(await run(claim("projection", "e1")), false);
      t.equal(await run(claim("projection", "e1")), false);
    },
  },
  {
    name: "inbox: consumers keep separate inboxes",
    run: async (t, run) => {
      t.equal(await run(claim("a", "e1")), true);
      t.equal(await run(claim("b", "e1")), true);
      t.equal(await run(claim("a", "e2")), true);
    },
  },
  {
    name: "inbox: a claim in a rolled-back transaction does not count",
    run: async (t, run) => {
      await run(Effect.exit(Effect.flatMap(Transactions, (tx) => tx.run(Effect.zipRight(claim("a", "e1"), Effect.fail("handler failed"))))));
      t.equal(await run(claim("a", "e1")), true);
    },
  },
  {
    name: "inbox: of concurrent claims of one event exactly one is true",
    run: async (t, run) => {
      await run(warmUp(8, purgeNothing));
      const results = await run(Effect.all(Array.from({ length: 8 }, () => claim("a", "e1")), { concurrency: "unbounded" }));
      t.equal(results.filter((r) => r).length, 1);
    },
  },
  {
    name: "inbox: retention deletes records made before the cutoff (events the outbox does not hold); later ones stay",
    run: async (t, run) => {
      t.equal(await run(claim("a", "e1")), true);
      t.equal(await run(claim("b", "e1")), true);
      const purge = (before: Date) => run(Effect.flatMap(Inbox, (i) => i.purgeProcessed(before, 100)));
      t.equal(await purge(new Date(Date.now() - 3_600_000)), 0, "nothing made before an hour ago");
      t.equal(await purge(new Date(Date.now() + 60_000)), 2, "both consumers' records of an event the outbox never held");
      t.equal(await run(claim("a", "e1")), true, "a purged record no longer dedupes");
    },
  },
  {
    name: "inbox: claimMany (when offered) answers exactly the events not claimed before, and claims them",
    run: async (t, run) => {
      const inbox = await run(Inbox);
      if (inbox.claimMany === undefined) {
        t.equal(typeof inbox.claimMany, "undefined", "the adapter claims event by event");
        return;
      }
      t.equal(await run(claim("a", "e2")), true);
      const fresh = await run(inbox.claimMany("a", ["e1", "e2", "e3"]));
      t.same([...fresh].sort(), ["e1", "e3"], "e2 was claimed before");
      t.same([...(await run(inbox.claimMany("a", ["e1", "e2", "e3", "e4"])))], ["e4"]);
      t.equal(await run(claim("a", "e3")), false, "a batch claim counts like a single one");
      t.same([...(await run(inbox.claimMany("b", ["e1"])))], ["e1"], "per consumer");
      t.same([...(await run(inbox.claimMany("b", [])))], []);
    },
  },
  {
    name: "inbox: a claimMany in a rolled-back transaction does not count",
    run: async (t, run) => {
      const inbox = await run(Inbox);
      const claimMany = inbox.claimMany;
      if (claimMany === undefined) {
        t.equal(typeof claimMany, "undefined", "the adapter claims event by event");
        return;
      }
      await run(Effect.exit(Effect.flatMap(Transactions, (tx) => tx.run(Effect.zipRight(claimMany("a", ["e1", "e2"]), Effect.fail("handler failed"))))));
      t.same([...(await run(claimMany("a", ["e1", "e2"])))].sort(), ["e1", "e2"]);
    },
  },
  {
    name: "inbox: of concurrent overlapping claimMany calls each event is claimed exactly once",
    requires: ["concurrentConnections"],
    run: async (t, run) => {
      const inbox = await run(Inbox);
      const claimMany = inbox.claimMany;
      if (claimMany === undefined) {
        t.equal(typeof claimMany, "undefined", "the adapter claims event by event");
        return;
      }
      const ids = Array.from({ length: 20 }, (_, i) => `e${i}`);
      await run(warmUp(6, purgeNothing));
      const results = await run(
        Effect.all(
          Array.from({ length: 6 }, (_, k) =>
            Effect.flatMap(Transactions, (tx) => tx.run(claimMany("a", k % 2 === 0 ? ids : [...ids].reverse()))),
          ),
          { concurrency: "unbounded" },
        ),
      );
      const all = results.flatMap((set) => [...set]);
      t.equal(all.length, ids.length, "no event claimed twice");
      t.same([...new Set(all)].sort(), [...ids].sort(), "every event claimed once");
    },
  },
];

/** Runs the inbox kit against an adapter. */
export const inboxSuite = (options: SuiteOptions<InboxKitPorts>): Promise<unknown> => runCases(options, inboxCases);
