/**
 * Contract kit for WorkSignals (ports/WorkSignals.ts), asserting only what the port promises:
 * outside a transaction a signal is sent at once; inside `Transactions.run` only once that
 * transaction commits, never after a rollback; a listener's wait completes once per arrival since
 * it last completed, so several signals before it coalesce into one. Signals from other processes
 * are "where the adapter can": not asserted.
 *
 * Signals are hints: an adapter may wake a listener without a signal, as ours on Postgres does
 * once its LISTEN connection is ready (a catch-up for notices sent before). So before watching
 * for a wake that must not come, a case settles the listener: one signal, its wake, and a quiet
 * window that absorbs a catch-up. A wait that must not complete is watched for `quietMs` (a
 * bound, not a timing assertion), as the lock cases of the projects kits watch a contender.
 */
import { Duration, Effect, Fiber, Option } from "effect";
import { Transactions } from "../../ports/Transactions.js";
import { WorkSignals } from "../../ports/WorkSignals.js";
import { runCases, type KitCase, type SuiteOptions } from "./Kit.js";

/** The ports this kit needs. */
export type WorkSignalsKitPorts = WorkSignals | Transactions;

const quietMs = 200;

/** Whether `wait` completes within `quietMs` (it is interrupted otherwise). */
const completesSoon = (wait: Effect.Effect<void>) =>
  Effect.gen(function* () {
    const fiber = yield* Effect.fork(wait);
    yield* Effect.sleep(Duration.millis(quietMs));
    const done = Option.isSome(yield* Fiber.poll(fiber));
    if (!done) yield* Fiber.interrupt(fiber);
    return done;
  });

/** A listener of `kind` whose catch-up wakes, if its adapter makes any, are behind it. */
const settledListener = (signals: WorkSignals, kind: "outbox" | "jobs") =>
  Effect.gen(function* () {
    const wait = yield* signals.listen(kind);
    yield* signals.notify(kind);
    yield* wait;
    yield* completesSoon(wait);
    return wait;
  });

/** The cases of the work signals kit. */
export const workSignalsCases: ReadonlyArray<KitCase<WorkSignalsKitPorts>> = [
  {
    name: "work signals: a signal outside a transaction wakes a listener of its kind",
    run: async (t, run) => {
      const woke = await run(
        Effect.scoped(
          Effect.gen(function* () {
            const signals = yield* WorkSignals;
            const wait = yield* signals.listen("outbox");
            yield* signals.notify("outbox");
            yield* wait;
            return true;
          }),
        ),
      );
      t.equal(woke, true, "the wait completed");
    },
  },
  {
    name: "work signals: a signal inside a transaction is sent once it commits, never after a rollback",
    run: async (t, run) => {
      const seen = await run(
        Effect.scoped(
          Effect.gen(function* () {
            const signals = yield* WorkSignals;
            const tx = yield* Transactions;
            const wait = yield* settledListener(signals, "jobs");
            yield* Effect.exit(tx.run(Effect.zipRight(signals.notify("jobs"), Effect.fail("rolled back"))));
            const afterRollback = yield* completesSoon(wait);
            yield* tx.run(Effect.zipRight(signals.notify("jobs"), signals.notify("jobs")));
            yield* wait;
            return { afterRollback };
          }),
        ),
      );
      t.equal(seen.afterRollback, false, "a rolled-back transaction's signal wakes no one");
    },
  },
  {
    name: "work signals: signals that arrive before a wait coalesce into one completion",
    run: async (t, run) => {
      const seen = await run(
        Effect.scoped(
          Effect.gen(function* () {
            const signals = yield* WorkSignals;
            const wait = yield* settledListener(signals, "outbox");
            for (let i = 0; i < 3; i++) yield* signals.notify("outbox");
            const first = yield* completesSoon(wait);
            const second = yield* completesSoon(wait);
            yield* signals.notify("outbox");
            yield* wait;
            return { first, second };
          }),
        ),
      );
      t.equal(seen.first, true, "the three signals complete one wait");
      t.equal(seen.second, false, "and not a second one");
    },
  },
];

/** Runs the work signals kit against the adapter `options.factory` makes. */
export const workSignalsSuite = (options: SuiteOptions<WorkSignalsKitPorts>): Promise<unknown> => runCases(options, workSignalsCases);
