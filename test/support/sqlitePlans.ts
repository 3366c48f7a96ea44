/**
 * Reading SQLite's plans of the statements a repository really runs: `capturePrepared` records
 * each statement whose text matches (with the values it was last run with, through `all`, `get`
 * or `run`) while `run` runs, and
 * `planDetails` (or `planLines`, as a tree) reads its EXPLAIN QUERY PLAN with those values
 * (SQLite's statistics include samples, so a plan can depend on the bound values).
 */
import { CompiledQuery } from "kysely";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { StatementCache } from "../../adapters/sqlite/SqliteConnections.js";

/** Runs `run` and answers it with the statements (text -> values) it ran whose text matches. */
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
      get: (target, key) => {
        const value: unknown = Reflect.get(target, key, target);
        if (typeof value !== "function") return value;
        const method = value as (...args: unknown[]) => unknown;
        if (key === "all" || key === "get" || key === "run") {
          return (parameters: ReadonlyArray<unknown>) => (executed.set(text, parameters), method.call(target, parameters));
        }
        // Native methods must be called on the statement itself, not on the proxy.
        return method.bind(target);
      },
    });
  };
  try {
    return { result: await run(), executed };
  } finally {
    StatementCache.prototype.prepare = prepare;
  }
};

/** One line of SQLite's plan: its node, the node it belongs to (0 at the top) and what it does. */
export interface PlanLine {
  readonly id: number;
  readonly parent: number;
  readonly detail: string;
}

/** SQLite's plan of `text` run with `parameters`, as a tree of lines. */
export const planLines = async (db: SqlDatabase, text: string, parameters: ReadonlyArray<unknown>): Promise<ReadonlyArray<PlanLine>> => {
  const { rows } = await db.db.executeQuery<PlanLine>(CompiledQuery.raw(`EXPLAIN QUERY PLAN ${text}`, [...parameters]));
  return rows.map(({ id, parent, detail }) => ({ id, parent, detail }));
};

/** The `detail` lines of SQLite's plan of `text` run with `parameters`. */
export const planDetails = async (db: SqlDatabase, text: string, parameters: ReadonlyArray<unknown>): Promise<ReadonlyArray<string>> =>
  (await planLines(db, text, parameters)).map((line) => line.detail);
