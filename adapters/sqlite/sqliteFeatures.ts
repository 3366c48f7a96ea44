/** SQLite's dialect features: BEGIN IMMEDIATE, ISO-8601 text times, JSON as text. */
import { sql } from "kysely";
import type { DialectFeatures } from "../sql/DialectFeatures.js";

/**
 * Times are stored as `Date.toISOString()` text (fixed width, UTC): it sorts and compares
 * correctly as text, and stays readable in the sqlite3 shell.
 */
export const sqliteFeatures: DialectFeatures = {
  dialect: "sqlite",
  // Taking the write lock at BEGIN makes concurrent writers wait (busy_timeout) instead of
  // failing with SQLITE_BUSY when a read transaction later tries to upgrade.
  beginSql: "BEGIN IMMEDIATE",
  timeToDb: (date) => date.toISOString(),
  timeFromDb: (value) => new Date(value as string),
  jsonToDb: (value) => JSON.stringify(value ?? null),
  jsonFromDb: (value) => (typeof value === "string" ? JSON.parse(value) : value),
  skipLocked: (query) => query,
  rowLocator: "rowid",
  keyInBatch: (column, batch) => sql<boolean>`${sql.ref(column)} IN (${batch})`,
};
