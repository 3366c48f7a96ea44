/**
 * Row locks for reads inside a transaction. Postgres takes the row lock asked for; SQLite has no
 * row locks and needs none, because its transactions begin IMMEDIATE and run one at a time.
 * - `update` (FOR UPDATE, the default): the row will be changed or deleted, keys included.
 * - `no key update` (FOR NO KEY UPDATE): the row is a parent others reference (a workspace, a
 *   project, a courier). It serializes the transactions that take it, but inserts of rows that
 *   reference it (their foreign key's KEY SHARE) do not wait for it, nor can they deadlock on it.
 * - `share` (FOR SHARE): the row must stay as read until the transaction ends (a role a command
 *   relies on); a change of it waits, and one already committed is seen.
 */
import type { SelectQueryBuilder } from "kysely";
import type { SqlDatabase } from "./SqlDatabase.js";

/** The row lock a read takes on Postgres. */
export type RowLockStrength = "update" | "no key update" | "share";

/** `query` with the row lock `strength` (FOR UPDATE by default) on Postgres when `lock`, unchanged otherwise. */
export const lockRow = <DB, TB extends keyof DB, O>(
  db: SqlDatabase,
  query: SelectQueryBuilder<DB, TB, O>,
  lock: boolean | undefined,
  strength: RowLockStrength = "update",
): SelectQueryBuilder<DB, TB, O> => {
  if (lock !== true || db.dialect !== "postgres") return query;
  if (strength === "no key update") return query.forNoKeyUpdate();
  if (strength === "share") return query.forShare();
  return query.forUpdate();
};
