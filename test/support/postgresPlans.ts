/**
 * Reading Postgres's plans of the statements an adapter really sends: `sentToPostgres` records
 * each statement whose text matches (with its values) as it leaves for the server while `run`
 * runs; `planNodes` flattens an EXPLAIN (FORMAT JSON) plan; `genericPlan` asks for the plan
 * Postgres caches for a prepared statement once it stops planning per call; `measuredPlan` runs
 * the statement with its values under EXPLAIN ANALYZE (rolled back) and `rowsRead` sums what its
 * scans of a table read.
 */
import { CompiledQuery } from "kysely";
import pg from "pg";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";

/** One statement as sent: its text and its values. */
export interface SentStatement {
  readonly text: string;
  readonly values: ReadonlyArray<unknown>;
}

/** Runs `run` and answers the statements sent to Postgres whose text matches, with their values. */
export const sentToPostgres = async (matches: (text: string) => boolean, run: () => Promise<unknown>): Promise<ReadonlyArray<SentStatement>> => {
  const sent: SentStatement[] = [];
  const query = pg.Client.prototype.query;
  pg.Client.prototype.query = function (this: pg.Client, config: unknown, ...rest: unknown[]) {
    // A Query or config object, or (unnamed, as Kysely sends a statement without values) text and values.
    const statement = typeof config === "string" ? { text: config, values: rest[0] as ReadonlyArray<unknown> | undefined } : (config as { text?: unknown; values?: ReadonlyArray<unknown> } | undefined);
    if (typeof statement?.text === "string" && matches(statement.text)) sent.push({ text: statement.text, values: statement.values ?? [] });
    return (query as (...args: unknown[]) => unknown).call(this, config, ...rest);
  } as typeof query;
  try {
    await run();
  } finally {
    pg.Client.prototype.query = query;
  }
  return sent;
};

/** A plan node of EXPLAIN (FORMAT JSON). */
export type PlanNode = Record<string, unknown>;

/** Every node of a plan, depth first. */
export const planNodes = (node: PlanNode): ReadonlyArray<PlanNode> => [node, ...((node["Plans"] as PlanNode[] | undefined) ?? []).flatMap(planNodes)];

/**
 * The generic plan of `statement` (the one Postgres caches for a named statement after its first
 * executions, which cannot look at the values), as its root node.
 */
export const genericPlan = (db: SqlDatabase, statement: SentStatement): Promise<PlanNode> =>
  db.db.connection().execute(async (connection) => {
    await connection.executeQuery(CompiledQuery.raw("SET plan_cache_mode = force_generic_plan"));
    try {
      await connection.executeQuery(CompiledQuery.raw(`PREPARE dk_generic_plan AS ${statement.text}`));
      const parameters = statement.values.map((value) => (value === null || value === undefined ? "NULL" : value instanceof Date ? `'${value.toISOString()}'` : typeof value === "number" ? String(value) : `'${String(value).replaceAll("'", "''")}'`));
      const { rows } = await connection.executeQuery<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
        CompiledQuery.raw(`EXPLAIN (FORMAT JSON) EXECUTE dk_generic_plan${parameters.length === 0 ? "" : `(${parameters.join(", ")})`}`),
      );
      return rows[0]!["QUERY PLAN"][0]!.Plan;
    } finally {
      // Only its own: the connection's named statements of the adapter (adapters/postgres/NamedStatements.ts) stay prepared.
      await connection.executeQuery(CompiledQuery.raw("DEALLOCATE dk_generic_plan"));
      await connection.executeQuery(CompiledQuery.raw("RESET plan_cache_mode"));
    }
  });

/** The plan of `statement` with its own values, measured by EXPLAIN ANALYZE, which runs it: rolled back. */
export const measuredPlan = (db: SqlDatabase, statement: SentStatement): Promise<PlanNode> =>
  db.db.connection().execute(async (connection) => {
    await connection.executeQuery(CompiledQuery.raw("BEGIN"));
    try {
      const { rows } = await connection.executeQuery<{ "QUERY PLAN": Array<{ Plan: PlanNode }> }>(
        CompiledQuery.raw(`EXPLAIN (ANALYZE, FORMAT JSON) ${statement.text}`, [...statement.values]),
      );
      return rows[0]!["QUERY PLAN"][0]!.Plan;
    } finally {
      await connection.executeQuery(CompiledQuery.raw("ROLLBACK"));
    }
  });

/** Rows a measured plan's scans of `table` read: returned in every loop, plus those its filters removed. */
export const rowsRead = (plan: PlanNode, table: string): number =>
  planNodes(plan)
    .filter((node) => node["Relation Name"] === table && String(node["Node Type"]).includes("Scan"))
    .reduce((sum, node) => sum + Number(node["Actual Rows"] ?? 0) * Number(node["Actual Loops"] ?? 1) + Number(node["Rows Removed by Filter"] ?? 0), 0);
