/**
 * File storage migration 6: `fs_file_versions.detected_content_type`, the type the scan detected
 * from a version's bytes (core/files/TypeDetection.ts). Null for versions stored before: they
 * keep being served as declared.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => [`ALTER TABLE fs_file_versions ADD COLUMN detected_content_type ${columnTypes(dialect).text}`];

/** Migration 6 of the file storage module. */
export const filesMigration0006: Migration = {
  version: 6,
  name: "detected_content_type",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
