/**
 * The Transactions port over one SqlDatabase. The open transaction's executor lives in a
 * FiberRef, so every repository call made inside `run` (and in fibers it forks) uses it; a
 * nested `run` joins it. The connection is pinned and BEGIN/COMMIT/ROLLBACK are issued here,
 * which lets SQLite begin with BEGIN IMMEDIATE (Kysely's own transaction() cannot).
 */
import { Effect, Exit, FiberRef, Layer, Runtime } from "effect";
import { CompiledQuery, type Kysely } from "kysely";
import { Transactions } from "../../ports/Transactions.js";
import { featuresFor } from "./featuresFor.js";
import { span } from "./StorageSpans.js";
import type { SqlDatabase } from "./SqlDatabase.js";

/** One open transaction: its pinned connection and what must happen once it commits. */
interface OpenTransaction {
  readonly executor: Kysely<any>;
  /** Hooks run after COMMIT, one per key (never after a rollback). */
  readonly afterCommit: Map<string, () => void>;
  /** Keys of the once-per-transaction steps already taken. */
  readonly done: Set<string>;
  /** Savepoints opened so far (names them uniquely). */
  savepoints: number;
}

// Compiled once: the control statements are the same text on every transaction.
const control = { commit: CompiledQuery.raw("COMMIT"), rollback: CompiledQuery.raw("ROLLBACK") };
const begins = new Map<string, CompiledQuery>();
const beginFor = (db: SqlDatabase): CompiledQuery => {
  const text = featuresFor(db).beginSql;
  let begin = begins.get(text);
  if (begin === undefined) begins.set(text, (begin = CompiledQuery.raw(text)));
  return begin;
};

// Keyed by database so a transaction on one database never leaks into queries on another.
const openTransactions = FiberRef.unsafeMake<ReadonlyMap<SqlDatabase, OpenTransaction>>(new Map());

/**
 * The executor repositories must use: the open transaction on `db`, else `db.autocommit` (on
 * SQLite: SELECTs on the read connection, other statements one at a time on the write
 * connection), else `db.db`. Never
 * query `db.db` directly inside a transaction: on SQLite the one connection is pinned by the
 * transaction, so such a query would wait for it forever.
 */
export const currentExecutor = (db: SqlDatabase): Effect.Effect<Kysely<any>> =>
  Effect.map(FiberRef.get(openTransactions), (open) => open.get(db)?.executor ?? db.autocommit ?? db.db);

/** True when the calling fiber is inside a transaction on `db`. */
export const inTransaction = (db: SqlDatabase): Effect.Effect<boolean> =>
  Effect.map(FiberRef.get(openTransactions), (open) => open.has(db));

/**
 * Runs `hook` after the open transaction on `db` commits, once per `key` however often it is
 * registered, and never after a rollback; outside a transaction it runs at once. Hooks are
 * synchronous notices (e.g. waking a worker): a throwing hook is ignored, the commit stands.
 */
export const afterCommit = (db: SqlDatabase, key: string, hook: () => void): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(openTransactions), (open) =>
    Effect.sync(() => {
      const transaction = open.get(db);
      if (transaction === undefined) runHook(hook);
      else if (!transaction.afterCommit.has(key)) transaction.afterCommit.set(key, hook);
    }),
  );

/**
 * Runs `effect` only the first time `key` is asked for in the open transaction on `db` (e.g. one
 * `pg_notify` per transaction); outside a transaction it runs every time.
 */
export const oncePerTransaction = (db: SqlDatabase, key: string, effect: Effect.Effect<void>): Effect.Effect<void> =>
  Effect.flatMap(FiberRef.get(openTransactions), (open) => {
    const transaction = open.get(db);
    if (transaction === undefined) return effect;
    if (transaction.done.has(key)) return Effect.void;
    transaction.done.add(key);
    // Forgotten again if it fails, so a later caller in the same transaction tries once more.
    return Effect.onError(effect, () => Effect.sync(() => void transaction.done.delete(key)));
  });

const runHook = (hook: () => void): void => {
  try {
    hook();
  } catch {
    /* the hook's own problem: the transaction has committed */
  }
};

/** Runs `effect` in a new transaction on a pinned connection and answers with its Exit. */
const runInNewTransaction = <A, E, R>(
  db: SqlDatabase,
  open: ReadonlyMap<SqlDatabase, OpenTransaction>,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  Effect.flatMap(Effect.runtime<R>(), (runtime) =>
    Effect.async<A, E, R>((resume) => {
      const controller = new AbortController();
      const begin = beginFor(db);
      const finished = db.db.connection().execute(async (connection) => {
        await connection.executeQuery(begin);
        const transaction: OpenTransaction = { executor: connection, afterCommit: new Map(), done: new Set(), savepoints: 0 };
        const inner = Effect.locally(effect, openTransactions, new Map(open).set(db, transaction));
        // The inner fiber is interrupted through the signal when the caller is interrupted.
        const exit = await Runtime.runPromiseExit(runtime)(inner, { signal: controller.signal }).catch(
          (error: unknown) => Exit.die(error) as Exit.Exit<A, E>,
        );
        if (Exit.isFailure(exit)) {
          await connection.executeQuery(control.rollback);
          return exit;
        }
        try {
          await connection.executeQuery(control.commit);
        } catch (error) {
          // A failed COMMIT can leave the transaction open (SQLite when busy): never hand the
          // connection back inside it.
          await connection.executeQuery(control.rollback).catch(() => undefined);
          throw error;
        }
        for (const hook of transaction.afterCommit.values()) runHook(hook);
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

/**
 * Runs `effect` inside the open transaction `transaction` behind a savepoint: when it fails, its
 * writes (and the after-commit hooks and once-per-transaction steps it registered) are undone
 * and the transaction stays usable; when it succeeds, the savepoint is released.
 */
const runInSavepoint = <A, E, R>(transaction: OpenTransaction, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) => {
    const name = `dk_savepoint_${(transaction.savepoints += 1)}`;
    const statement = (text: string) => Effect.promise(() => transaction.executor.executeQuery(CompiledQuery.raw(text)));
    const hooksBefore = new Set(transaction.afterCommit.keys());
    const doneBefore = new Set(transaction.done);
    return Effect.zipRight(
      statement(`SAVEPOINT ${name}`),
      Effect.onExit(restore(effect), (exit) =>
        Exit.isSuccess(exit)
          ? statement(`RELEASE SAVEPOINT ${name}`)
          : Effect.zipRight(
              statement(`ROLLBACK TO SAVEPOINT ${name}`),
              Effect.zipRight(
                statement(`RELEASE SAVEPOINT ${name}`),
                Effect.sync(() => {
                  for (const key of [...transaction.afterCommit.keys()]) if (!hooksBefore.has(key)) transaction.afterCommit.delete(key);
                  for (const key of [...transaction.done]) if (!doneBefore.has(key)) transaction.done.delete(key);
                }),
              ),
            ),
      ),
    );
  });

/** Builds the Transactions port for `db`. */
export const makeTransactions = (db: SqlDatabase): Transactions => {
  const run = <A, E, R>(effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.flatMap(FiberRef.get(openTransactions), (open) =>
      open.has(db) ? effect : runInNewTransaction(db, open, effect),
    ).pipe(span("Transactions.run"));
  return {
    run,
    savepoint: <A, E, R>(effect: Effect.Effect<A, E, R>) =>
      Effect.flatMap(FiberRef.get(openTransactions), (open) => {
        const transaction = open.get(db);
        return transaction === undefined ? run(effect) : runInSavepoint(transaction, effect);
      }).pipe(span("Transactions.savepoint")),
  };
};

/** Provides the Transactions port for `db`. */
export const transactionsLayer = (db: SqlDatabase): Layer.Layer<Transactions> =>
  Layer.succeed(Transactions, makeTransactions(db));
