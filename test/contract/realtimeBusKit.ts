/**
 * Contract kit for the RealtimeBus (ports/Realtime.ts), asserting only what the port promises: a
 * notice reaches every listener, the publishing process's and another process's over the same
 * backend, once; published inside a transaction, it is delivered once that transaction commits,
 * never after a rollback; a listener that stopped hears nothing more.
 *
 * The kit needs a second bus over the same backend, as another process would have it (Postgres: a
 * bus over another pool; SQLite: another bus over the same file): the factory provides it as
 * `RealtimeBusPeer`. Absence is observed without a clock: a later notice, published after the
 * one that must not arrive, is awaited, and by then the earlier one would have come.
 */
import { Context, Effect } from "effect";
import { RealtimeBus, type RealtimeNotice } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import { runCases, type KitCase, type SuiteOptions } from "./Kit.js";

/** A second RealtimeBus over the same backend as the one under test (another process's). */
export interface RealtimeBusPeer {
  readonly bus: RealtimeBus;
}
export const RealtimeBusPeer = Context.GenericTag<RealtimeBusPeer>("domainkit/testkit/RealtimeBusPeer");

/** The ports this kit needs. */
export type RealtimeBusKitPorts = RealtimeBus | RealtimeBusPeer | Transactions;

const notice = (offset: number): RealtimeNotice => ({ type: "message", channel: "project:kit", offset });

/** A listener's notices so far, and a wait until `count` have arrived (a kit case's own limit bounds it). */
const hearing = (bus: RealtimeBus) =>
  Effect.gen(function* () {
    const heard: RealtimeNotice[] = [];
    const waiters: Array<{ count: number; resolve: () => void }> = [];
    const stop = yield* bus.listen((n) => {
      heard.push(n);
      for (const w of waiters.filter((w) => heard.length >= w.count)) {
        waiters.splice(waiters.indexOf(w), 1);
        w.resolve();
      }
    });
    const heardAtLeast = (count: number) =>
      Effect.promise(() => (heard.length >= count ? Promise.resolve() : new Promise<void>((resolve) => waiters.push({ count, resolve }))));
    return { heard, heardAtLeast, stop };
  });

const buses = Effect.all({ bus: RealtimeBus, peer: Effect.map(RealtimeBusPeer, (p) => p.bus), tx: Transactions });

/** A notice's offset, for comparing what was heard. */
const offsets = (ns: ReadonlyArray<RealtimeNotice>) => ns.map((n) => (n.type === "message" ? n.offset : n.type));

/** The cases of the realtime bus kit. */
export const realtimeBusCases: ReadonlyArray<KitCase<RealtimeBusKitPorts>> = [
  {
    name: "realtime bus: a notice reaches every listener, in this process and in another over the same backend, once",
    run: async (t, run) => {
      const heard = await run(
        Effect.gen(function* () {
          const { bus, peer } = yield* buses;
          const here = yield* hearing(bus);
          const there = yield* hearing(peer);
          const alsoThere = yield* hearing(peer);
          for (const n of [1, 2, 3]) yield* bus.publish(notice(n));
          yield* bus.publish({ type: "access_changed", userId: "u1" });
          for (const l of [here, there, alsoThere]) yield* l.heardAtLeast(4);
          // One more from the other side, so a duplicate of the first four would have come before it.
          yield* peer.publish(notice(5));
          for (const l of [here, there, alsoThere]) yield* l.heardAtLeast(5);
          for (const l of [here, there, alsoThere]) l.stop();
          return [here.heard, there.heard, alsoThere.heard].map((h) => offsets(h).sort());
        }),
      );
      const all = [1, 2, 3, 5, "access_changed"].sort();
      t.same(heard, [all, all, all], "each listener hears each notice once");
    },
  },
  {
    name: "realtime bus: a notice published inside a transaction is delivered once it commits, never after a rollback",
    run: async (t, run) => {
      const heard = await run(
        Effect.gen(function* () {
          const { bus, peer, tx } = yield* buses;
          const there = yield* hearing(peer);
          yield* Effect.exit(tx.run(Effect.zipRight(bus.publish(notice(99)), Effect.fail("rolled back"))));
          let heardWhileOpen = -1;
          yield* tx.run(Effect.zipRight(bus.publish(notice(1)), Effect.sync(() => (heardWhileOpen = there.heard.length))));
          yield* there.heardAtLeast(1);
          yield* bus.publish(notice(2));
          yield* there.heardAtLeast(2);
          there.stop();
          return { heardWhileOpen, heard: offsets(there.heard).sort() };
        }),
      );
      t.equal(heard.heardWhileOpen, 0, "nothing while the transaction is open");
      t.same(heard.heard, [1, 2], "the committed notice and the later one; the rolled-back one never");
    },
  },
  {
    name: "realtime bus: a listener that stopped hears nothing more; the others still do",
    run: async (t, run) => {
      const heard = await run(
        Effect.gen(function* () {
          const { bus, peer } = yield* buses;
          const stopped = yield* hearing(peer);
          const still = yield* hearing(peer);
          yield* bus.publish(notice(1));
          yield* stopped.heardAtLeast(1);
          yield* still.heardAtLeast(1);
          stopped.stop();
          yield* bus.publish(notice(2));
          yield* still.heardAtLeast(2);
          still.stop();
          return { stopped: offsets(stopped.heard), still: offsets(still.heard).sort() };
        }),
      );
      t.same(heard.stopped, [1], "nothing after stopping");
      t.same(heard.still, [1, 2]);
    },
  },
];

/** Runs the realtime bus kit against the adapter `options.factory` makes. */
export const realtimeBusSuite = (options: SuiteOptions<RealtimeBusKitPorts>): Promise<unknown> => runCases(options, realtimeBusCases);
