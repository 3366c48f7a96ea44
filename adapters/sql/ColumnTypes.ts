/**
 * Column types of migrations per dialect, named once so a module's DDL reads the same on both:
 * `const c = columnTypes(dialect)` then `` `created_at ${c.time} NOT NULL` ``.
 */
import type { SqlDialect } from "./SqlDatabase.js";

/** The DDL type of each field kind (core/kernel/RecordFields.ts) on one dialect. */
export interface ColumnTypes {
  readonly text: string;
  /** Text compared byte-wise on both dialects (rank keys, opaque tokens). */
  readonly binaryText: string;
  readonly int: string;
  /** Counts and money in minor units that may pass 2^31. */
  readonly bigint: string;
  readonly bool: string;
  /** ISO-8601 text on SQLite (sorts as text), timestamptz on Postgres. */
  readonly time: string;
  readonly json: string;
  readonly bytes: string;
}

const sqlite: ColumnTypes = {
  text: "TEXT",
  binaryText: "TEXT",
  int: "INTEGER",
  bigint: "INTEGER",
  bool: "INTEGER",
  time: "TEXT",
  json: "TEXT",
  bytes: "BLOB",
};

const postgres: ColumnTypes = {
  text: "text",
  binaryText: `text COLLATE "C"`,
  int: "integer",
  bigint: "bigint",
  bool: "boolean",
  time: "timestamptz",
  json: "jsonb",
  bytes: "bytea",
};

/** The column types of `dialect`. */
export const columnTypes = (dialect: SqlDialect): ColumnTypes => (dialect === "sqlite" ? sqlite : postgres);
