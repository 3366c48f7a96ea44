/**
 * Recognizing a unique-constraint violation on both drivers (pg 23505, better-sqlite3
 * SQLITE_CONSTRAINT_UNIQUE / PRIMARYKEY), so a repository can answer "taken" instead of dying.
 * Candidate for adapters/sql (other modules need the same).
 */
import { Effect } from "effect";
import type { Kysely } from "kysely";
import type { SqlDatabase } from "../SqlDatabase.js";
import { currentExecutor } from "../Transactions.js";

/** True for a UNIQUE or PRIMARY KEY violation. */
export const isUniqueViolation = (error: unknown): boolean => {
  const code = typeof error === "object" && error !== null ? (error as { code?: unknown }).code : undefined;
  return code === "23505" || code === "SQLITE_CONSTRAINT_UNIQUE" || code === "SQLITE_CONSTRAINT_PRIMARYKEY";
};

/** Runs a write; a unique violation answers `onTaken`, any other failure is a defect. */
export const runWrite = <A, B>(db: SqlDatabase, query: (executor: Kysely<any>) => Promise<A>, onTaken: B): Effect.Effect<A | B> =>
  Effect.flatMap(currentExecutor(db), (executor) =>
    Effect.tryPromise({ try: () => query(executor), catch: (error) => error }),
  ).pipe(Effect.catchAll((error) => (isUniqueViolation(error) ? Effect.succeed(onTaken) : Effect.die(error))));
