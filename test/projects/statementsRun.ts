/**
 * How many statements a piece of work runs: each execution counted (not each distinct text), on
 * SQLite as its connections take them from their statement caches, on Postgres as they are sent.
 */
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { StatementCache } from "../../adapters/sqlite/SqliteConnections.js";
import { sentToPostgres } from "../support/postgresPlans.js";

/** Runs `run` on `db` and answers how many statements whose text matches it ran. */
export const statementsRun = async (db: SqlDatabase, matches: (text: string) => boolean, run: () => Promise<unknown>): Promise<number> => {
  if (db.dialect === "postgres") return (await sentToPostgres(matches, run)).length;
  let count = 0;
  const prepare = StatementCache.prototype.prepare;
  StatementCache.prototype.prepare = function (this: StatementCache, text: string) {
    if (matches(text)) count++;
    return prepare.call(this, text);
  };
  try {
    await run();
  } finally {
    StatementCache.prototype.prepare = prepare;
  }
  return count;
};
