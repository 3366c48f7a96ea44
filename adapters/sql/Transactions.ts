/**
 * The Transactions port over one SqlDatabase. The open transaction's executor lives in a
 * FiberRef, so every repository call made inside `run` (and in fibers it forks) uses it; a
 * nested `run` joins it. The connection is pinned and BEGIN/COMMIT/ROLLBACK are issued here,
 * which lets SQLite begin with BEGIN IMMEDIATE (Kysely's own transaction() cannot).
 */
import { Effect, Exit, FiberRef, Layer, Runtime } from "effect";
import { sql, type Kysely } from "kysely";
import { Transactions } from "../../ports/Transactions.js";
import { featuresFor } from "./featuresFor.js";
import type { SqlDatabase } from "./SqlDatabase.js";

// Keyed by database so a transaction on one database never leaks into queries on another.
const openTransactions = FiberRef.unsafeMake<ReadonlyMap<SqlDatabase, Kysely<any>>>(new Map());

/**
 * The executor repositories must use: the open transaction on `db`, else `db` itself. Never
 * query `db.db` directly inside a transaction: on SQLite the one connection is pinned by the
 * transaction, so such a query would wait for it forever.
 */
export const currentExecutor = (db: SqlDatabase): Effect.Effect<Kysely<any>> =>
  Effect.map(FiberRef.get(openTransactions), (open) => open.get(db) ?? db.db);

/** True when the calling fiber is inside a transaction on `db`. */
export const inTransaction = (db: SqlDatabase): Effect.Effect<boolean> =>
  Effect.map(FiberRef.get(openTransactions), (open) => open.has(db));

/** Runs `effect` in a new transaction on a pinned connection and answers with its Exit. */
const runInNewTransaction = <A, E, R>(
  db: SqlDatabase,
  open: ReadonlyMap<SqlDatabase, Kysely<any>>,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.runtime<R>(), (runtime) =>
    Effect.async<A, E, R>((resume) => {
      const controller = new AbortController();
      const begin = featuresFor(db).beginSql;
      const finished = db.db.connection().execute(async (connection) => {
        await sql.raw(begin).execute(connection);
        const inner = Effect.locally(effect, openTransactions, new Map(open).set(db, connection));
        // The inner fiber is interrupted through the signal when the caller is interrupted.
        const exit = await Runtime.runPromiseExit(runtime)(inner, { signal: controller.signal }).catch(
          (error: unknown) => Exit.die(error) as Exit.Exit<A, E>,
        );
        if (Exit.isSuccess(exit)) await sql.raw("COMMIT").execute(connection);
        else await sql.raw("ROLLBACK").execute(connection);
        return exit;
      });
      finished.then(
        (exit) => resume(exit),
        (error: unknown) => resume(Effect.die(error)),
      );
      // On interruption: stop the inner fiber and wait for its rollback before returning.
      return Effect.promise(() => {
        controller.abort();
        return finished.then(
          () => undefined,
          () => undefined,
        );
      });
    }),
  );

/** Builds the Transactions port for `db`. */
export const makeTransactions = (db: SqlDatabase): Transactions => ({
  run: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
    Effect.flatMap(FiberRef.get(openTransactions), (open) =>
      open.has(db) ? effect : runInNewTransaction(db, open, effect),
    ).pipe(Effect.withSpan("Transactions.run")),
});

/** Provides the Transactions port for `db`. */
export const transactionsLayer = (db: SqlDatabase): Layer.Layer<Transactions> =>
  Layer.succeed(Transactions, makeTransactions(db));
