/**
 * Breaks that only a race can see, for proving the kits' race cases: a port method that checks
 * before it acts. Its answer is read first in a transaction that is rolled back, then the method
 * runs for real and that first answer is returned. One call at a time, the check and the act see
 * the same state and the adapter passes every other case. When calls overlap, each one checks
 * before any of them has acted, so several are told they won. This is the check-then-act bug that
 * "concurrent ... exactly one" cases exist to catch. Only on Postgres: the race needs concurrent
 * connections.
 */
import { Context, Effect, Layer } from "effect";
import type { Test } from "tap";
import { Transactions } from "../../ports/Transactions.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { runCases, type AdapterFactory, type KitCase } from "../contract/index.js";
import { openTestDatabase } from "../support/databases.js";
import type { ModuleMigrations } from "../../adapters/sql/Migrations.js";
import { kitFailures } from "./kitRecorder.js";

class Checked<A> {
  constructor(readonly answer: A) {}
}

/** `act`, answered as a check made just before it saw things: right alone, wrong when racing. */
export const checkThenAct = <A, E, R>(tx: Transactions, act: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.gen(function* () {
    // Inside an open transaction (a race of transactions) the check undoes only itself.
    const undone = tx.savepoint ?? tx.run;
    const checked = yield* undone(Effect.flatMap(act, (answer) => Effect.fail(new Checked(answer)))).pipe(
      Effect.catchIf(
        (e): e is Checked<A> => e instanceof Checked,
        (c) => Effect.succeed(c.answer),
      ),
    );
    // Acting a moment after the check, as an adapter that checks and acts in two round trips does.
    yield* Effect.sleep("5 millis");
    yield* act;
    return checked as A;
  });

/** What a break may use besides the real service: the adapter's transactions and database. */
export interface BreakTools {
  readonly tx: Transactions;
  readonly db: SqlDatabase;
}

/** `layer` with the service of `tag` replaced by `breakIt(real, tools)`. */
export const replacing = <ROut, I, S>(
  layer: Layer.Layer<ROut>,
  tag: Context.Tag<I, S>,
  breakIt: (real: S, tools: BreakTools) => S,
  db: SqlDatabase,
): Layer.Layer<ROut> =>
  Layer.effectContext(
    Effect.map(Effect.context<ROut>(), (ctx) => {
      const all = ctx as unknown as Context.Context<I | Transactions>;
      return Context.add(all, tag, breakIt(Context.get(all, tag), { tx: Context.get(all, Transactions), db })) as unknown as Context.Context<ROut>;
    }),
  ).pipe(Layer.provide(layer));

/**
 * A Postgres factory: a fresh database migrated with `migrations`, the ports `layerOf(db)` makes,
 * and the service of `tag` broken by `breakIt`.
 */
export const brokenPostgres =
  <ROut, I, S>(
    layerOf: (db: SqlDatabase) => Layer.Layer<ROut>,
    tag: Context.Tag<I, S>,
    breakIt: (real: S, tools: BreakTools) => S,
    migrations?: ReadonlyArray<ModuleMigrations>,
  ): AdapterFactory<ROut> =>
  async () => {
    const teardowns: Array<() => unknown> = [];
    const db = await openTestDatabase("postgres", { teardown: (fn) => teardowns.push(fn) }, migrations);
    return {
      layer: replacing(layerOf(db), tag, breakIt, db),
      close: async () => {
        // Last in, first out: the pool closes before its database is dropped.
        for (const fn of teardowns.reverse()) await fn();
      },
    };
  };

/** Runs the kit case named `rule` (from `cases`) with concurrent connections; the failures it records. */
export const raceFailures = <R>(cases: ReadonlyArray<KitCase<R>>, rule: string, factory: AdapterFactory<R>): Promise<ReadonlyArray<string>> => {
  const picked = cases.filter((c) => c.name === rule);
  if (picked.length !== 1) throw new Error(`no case named ${rule}`);
  return kitFailures((test) => runCases({ test, factory, supports: { concurrentConnections: true } }, picked));
};

/** Whether a failure of the case named `rule` was recorded. */
export const broke = (failures: ReadonlyArray<string>, rule: string): boolean => failures.some((f) => f.startsWith(`${rule}:`));

/** A race case and a broken adapter it must catch. */
export interface BrokenRace {
  /** The case's name. */
  readonly rule: string;
  /** What the broken adapter does wrong. */
  readonly broken: string;
  /** Runs the case against the broken adapter; the failures it records. */
  readonly run: () => Promise<ReadonlyArray<string>>;
}

/** One test per race: the case fails for its broken adapter. */
export const proveRaces = (t: Test, races: ReadonlyArray<BrokenRace>): void => {
  for (const race of races) {
    t.test(`${race.broken} breaks '${race.rule}'`, async (t) => {
      t.ok(broke(await race.run(), race.rule), "the race case fails");
    });
  }
};
