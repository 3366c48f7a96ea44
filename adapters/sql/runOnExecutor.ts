/**
 * A bound statement on a given executor, the one way both the repositories (runQuery.ts) and the
 * transaction runner's savepoints (Transactions.ts) run one: synchronously where the driver can
 * (SQLite), straight to a transaction's connection (Postgres), else through Kysely's executor;
 * and a write nobody reads the answer of sent without waiting inside a Postgres transaction.
 */
import { Effect } from "effect";
import type { CompiledQuery, Kysely, QueryResult } from "kysely";
import type { SqlDatabase } from "./SqlDatabase.js";

/** Runs `query` on `executor`; infrastructure failures are defects. */
export const runBound = (db: SqlDatabase, executor: Kysely<any>, query: CompiledQuery): Effect.Effect<QueryResult<any>> => {
  if (db.runNow !== undefined) {
    let result: QueryResult<any> | undefined;
    try {
      result = db.runNow(executor, query);
    } catch (error) {
      return Effect.die(error);
    }
    if (result !== undefined) return Effect.succeed(result);
  }
  const { sendNow } = db;
  return Effect.orDie(
    Effect.tryPromise({
      try: () => (sendNow === undefined ? undefined : sendNow(executor, query)) ?? executor.executeQuery(query),
      catch: (error) => error,
    }),
  );
};

/**
 * Sends `query` without waiting for its answer where a Postgres transaction can take it
 * (`SqlDatabase.sendLater`: its failure fails the transaction at its next statement or COMMIT);
 * elsewhere runs it as {@link runBound} does.
 */
export const sendBound = (db: SqlDatabase, executor: Kysely<any>, query: CompiledQuery): Effect.Effect<void> =>
  db.sendLater?.(executor, query) === true ? Effect.void : Effect.asVoid(runBound(db, executor, query));
