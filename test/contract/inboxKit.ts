/** Contract kit for the consumer Inbox: each (consumer, event) is processed at most once. */
import { Effect } from "effect";
import { Inbox } from "../../ports/Inbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { runCases, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type InboxKitPorts = Inbox | Transactions;

const claim = (consumer: string, eventId: string) => Effect.flatMap(Inbox, (i) => i.claim(consumer, eventId));

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
      const results = await run(Effect.all(Array.from({ length: 8 }, () => claim("a", "e1")), { concurrency: "unbounded" }));
      t.equal(results.filter((r) => r).length, 1);
    },
  },
];

/** Runs the inbox kit against an adapter. */
export const inboxSuite = (options: SuiteOptions<InboxKitPorts>): Promise<unknown> => runCases(options, inboxCases);
