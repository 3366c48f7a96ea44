/**
 * The Transactions port over one SqlDatabase. The open transaction's executor lives in a
 * FiberRef, so every repository call made inside `run` (and in fibers it forks) uses it; a
 * nested `run` joins it. The connection is taken from the driver (`transactionConnections`) and
 * BEGIN/COMMIT/ROLLBACK are issued here, which lets SQLite begin with BEGIN IMMEDIATE (Kysely's
 * own transaction() cannot).
 */
import { Effect, Exit, FiberRef, Layer } from "effect";
import { CompiledQuery, type Kysely } from "kysely";
import { Transactions } from "../../ports/Transactions.js";
import { featuresFor } from "./featuresFor.js";
import { sendBound } from "./runOnExecutor.js";
import { span } from "./StorageSpans.js";
import type { ExclusiveConnection, PooledConnections, SqlDatabase } from "./SqlDatabase.js";

/** One open transaction: its pinned connection and what must happen once it commits. */
interface OpenTransaction {
  readonly executor: Kysely<any>;
  /** Hooks run after COMMIT, one per key (never after a rollback). */
  readonly afterCommit: Map<string, () => void>;
  /** Savepoints opened so far (names them uniquely). */
  savepoints: number;
}

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

const runHook = (hook: () => void): void => {
  try {
    hook();
  } catch {
    /* the hook's own problem: the transaction has committed */
  }
};

/** A connection pinned for one transaction that has begun, and the way to end it. */
interface BegunTransaction {
  readonly executor: Kysely<any>;
  /**
   * COMMITs (`commit`) or ROLLs BACK, then hands the connection back. A failed COMMIT can leave
   * the transaction open (SQLite when busy), so it is rolled back before the connection goes
   * back, and the COMMIT's error is a defect.
   */
  readonly end: (commit: boolean) => Effect.Effect<void>;
}

/**
 * Takes a connection of the pool (Postgres) and BEGINs on it (the BEGIN goes out with the first
 * statement: PooledConnections.ts). A connection whose ROLLBACK fails, also after a failed COMMIT
 * or a refused BEGIN, is closed rather than handed back.
 */
const beginPooled = (connections: PooledConnections, beginSql: string): Effect.Effect<BegunTransaction> =>
  Effect.promise(async (): Promise<BegunTransaction> => {
    const connection = await connections.take();
    connection.begin(beginSql);
    const end = async (commit: boolean): Promise<void> => {
      let broken = false;
      try {
        if (!commit) {
          await connection.rollback().catch((error: unknown) => {
            broken = true;
            throw error;
          });
          return;
        }
        try {
          await connection.commit();
        } catch (error) {
          await connection.rollback().catch(() => (broken = true));
          throw error;
        }
      } finally {
        connection.give(broken);
      }
    };
    return { executor: connection.executor, end: (commit) => Effect.promise(() => end(commit)) };
  });

/**
 * Takes the database's single write connection (SQLite) and begins on it, synchronously when
 * the connection is free: no connection is lent through Kysely, BEGIN and COMMIT are direct.
 * A transaction that queued for the connection may share the COMMIT of the one before it (group
 * commit: adapters/sqlite/GroupCommit.ts); its end then waits for that COMMIT.
 */
const beginExclusive = (connection: ExclusiveConnection, beginSql: string): Effect.Effect<BegunTransaction> => {
  const end = (commit: boolean): Effect.Effect<void> =>
    Effect.flatMap(Effect.sync(() => connection.end(commit)), (committing) => (committing === undefined ? Effect.void : Effect.promise(() => committing)));
  const begun = Effect.sync((): BegunTransaction => {
    connection.begin(beginSql);
    return { executor: connection.executor, end };
  });
  return Effect.suspend(() => (connection.tryTake() ? begun : Effect.zipRight(Effect.promise(connection.take), begun)));
};

const begin = (db: SqlDatabase): Effect.Effect<BegunTransaction> => {
  const connections = db.transactionConnections;
  const beginSql = featuresFor(db).beginSql;
  return connections.kind === "exclusive" ? beginExclusive(connections, beginSql) : beginPooled(connections, beginSql);
};

/**
 * Runs `effect` in a new transaction on a pinned connection. Beginning and ending (COMMIT or
 * ROLLBACK, and the connection's release) are not interruptible; `effect` is, and an
 * interrupted `effect` is rolled back. After-commit hooks run once COMMIT has succeeded.
 */
const runInNewTransaction = <A, E, R>(
  db: SqlDatabase,
  open: ReadonlyMap<SqlDatabase, OpenTransaction>,
  effect: Effect.Effect<A, E, R>,
): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) =>
    Effect.flatMap(begin(db), ({ executor, end }) => {
      const transaction: OpenTransaction = { executor, afterCommit: new Map(), savepoints: 0 };
      // What `Effect.locally` does, without the second uninterruptible region it would open
      // inside this one: the transaction is open while `effect` runs, and closed whatever its exit.
      const inner = Effect.zipRight(FiberRef.set(openTransactions, new Map(open).set(db, transaction)), Effect.exit(restore(effect)));
      return Effect.flatMap(inner, (exit) =>
        Effect.zipRight(
          FiberRef.set(openTransactions, open),
          Effect.flatMap(end(Exit.isSuccess(exit)), () => {
            if (Exit.isSuccess(exit)) for (const hook of transaction.afterCommit.values()) runHook(hook);
            return exit;
          }),
        ),
      );
    }),
  );

/**
 * Runs `effect` inside the open transaction `transaction` behind a savepoint: when it fails, its
 * writes (and the after-commit hooks it registered) are undone
 * and the transaction stays usable; when it succeeds, the savepoint is released.
 */
const runInSavepoint = <A, E, R>(db: SqlDatabase, transaction: OpenTransaction, effect: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
  Effect.uninterruptibleMask((restore) => {
    const name = `dk_savepoint_${(transaction.savepoints += 1)}`;
    // Nobody reads their answers: on Postgres they go out with the next statement (a failure
    // fails the transaction there), on SQLite they run at once.
    const statement = (text: string): Effect.Effect<void> => sendBound(db, transaction.executor, CompiledQuery.raw(text));
    const hooksBefore = new Set(transaction.afterCommit.keys());
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
        return transaction === undefined ? run(effect) : runInSavepoint(db, transaction, effect);
      }).pipe(span("Transactions.savepoint")),
  };
};

/** Provides the Transactions port for `db`. */
export const transactionsLayer = (db: SqlDatabase): Layer.Layer<Transactions> =>
  Layer.succeed(Transactions, makeTransactions(db));
