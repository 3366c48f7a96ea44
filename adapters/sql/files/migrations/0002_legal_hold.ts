/**
 * File storage migration 2: `fs_nodes.legal_hold` (a workspace admin's legal hold; the trash
 * retention purge keeps what it marks), false for every existing node.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => [
  `ALTER TABLE fs_nodes ADD COLUMN legal_hold ${columnTypes(dialect).bool} NOT NULL DEFAULT ${dialect === "postgres" ? "false" : "0"}`,
];

/** Migration 2 of the file storage module. */
export const filesMigration0002: Migration = {
  version: 2,
  name: "legal_hold",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
