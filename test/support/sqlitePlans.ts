/**
 * Reading SQLite's plans of the statements a repository really runs: `capturePrepared` records
 * each statement whose text matches (with the values it was last run with) while `run` runs, and
 * `planDetails` reads its EXPLAIN QUERY PLAN with those values (SQLite's statistics include
 * samples, so a plan can depend on the bound values).
 */
import { CompiledQuery } from "kysely";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { StatementCache } from "../../adapters/sqlite/SqliteConnections.js";

/** Runs `run` and answers it with the statements (text -> values) it ran through `all` whose text matches. */
export const capturePrepared = async <A>(
  matches: (text: string) => boolean,
  run: () => Promise<A>,
): Promise<{ readonly result: A; readonly executed: ReadonlyMap<string, ReadonlyArray<unknown>> }> => {
  const executed = new Map<string, ReadonlyArray<unknown>>();
  const prepare = StatementCache.prototype.prepare;
  StatementCache.prototype.prepare = function (this: StatementCache, text: string) {
    const statement = prepare.call(this, text);
    if (!matches(text)) return statement;
    return new Proxy(statement, {
      get: (target, key) =>
        key === "all" ? (parameters: ReadonlyArray<unknown>) => (executed.set(text, parameters), target.all(parameters)) : Reflect.get(target, key, target),
    });
  };
  try {
    return { result: await run(), executed };
  } finally {
    StatementCache.prototype.prepare = prepare;
  }
};

/** The `detail` lines of SQLite's plan of `text` run with `parameters`. */
export const planDetails = async (db: SqlDatabase, text: string, parameters: ReadonlyArray<unknown>): Promise<ReadonlyArray<string>> => {
  const { rows } = await db.db.executeQuery<{ detail: string }>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]));
  return rows.map((row) => row.detail);
};
