/**
 * Row locks for reads inside a transaction. Postgres takes FOR UPDATE; SQLite has no row
 * locks and needs none, because its transactions begin IMMEDIATE and run one at a time.
 */
import type { SelectQueryBuilder } from "kysely";
import type { SqlDatabase } from "./SqlDatabase.js";

/** `query` with FOR UPDATE on Postgres when `forUpdate`, unchanged otherwise. */
export const lockRow = <DB, TB extends keyof DB, O>(
  db: SqlDatabase,
  query: SelectQueryBuilder<DB, TB, O>,
  forUpdate: boolean | undefined,
): SelectQueryBuilder<DB, TB, O> => (forUpdate === true && db.dialect === "postgres" ? query.forUpdate() : query);
