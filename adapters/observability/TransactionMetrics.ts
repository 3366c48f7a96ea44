/**
 * Transaction latency without touching the storage adapters: a wrapper of the Transactions port
 * that times each outermost `run` (a nested run joins its parent and is not counted) and labels
 * it `commit` or `rollback`. Hosts install it by rebinding the port (ObservedHost.ts).
 */
import { Effect, Exit } from "effect";
import type { Histogram } from "prom-client";
import { inTransaction } from "../sql/Transactions.js";
import type { SqlDatabase } from "../sql/SqlDatabase.js";
import type { Transactions } from "../../ports/Transactions.js";

/** `inner`, with every outermost transaction on `database` observed in `histogram`. */
export const timedTransactions = (inner: Transactions, database: SqlDatabase, histogram: Histogram<"outcome">): Transactions => {
  // The two labelled children are resolved once: labelling per observation hashed the labels every time.
  const committed = histogram.labels({ outcome: "commit" });
  const rolledBack = histogram.labels({ outcome: "rollback" });
  return {
    run: <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
      Effect.flatMap(inTransaction(database), (inside) => {
        if (inside) return inner.run(effect);
        const started = performance.now();
        return Effect.onExit(inner.run(effect), (exit) =>
          Effect.sync(() => (Exit.isSuccess(exit) ? committed : rolledBack).observe((performance.now() - started) / 1000)),
        );
      }),
    // Kept: without it the relay would lose its savepoints and deliver a batch one transaction per event.
    ...(inner.savepoint !== undefined ? { savepoint: inner.savepoint } : {}),
  };
};
