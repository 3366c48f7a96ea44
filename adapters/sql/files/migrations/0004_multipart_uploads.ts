/**
 * File storage migration 4: native multipart uploads (an S3-compatible ObjectStore).
 * `fs_upload_sessions.store_upload_id` is the store's multipart upload id (null when the store
 * keeps one object per part), `fs_upload_parts.etag` the ETag the client reported for a part the
 * store received (null until reported) — received parts are tracked here, not asked of the store.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => [
  `ALTER TABLE fs_upload_sessions ADD COLUMN store_upload_id ${columnTypes(dialect).text} CHECK (length(store_upload_id) BETWEEN 1 AND 1024)`,
  `ALTER TABLE fs_upload_parts ADD COLUMN etag ${columnTypes(dialect).text} CHECK (length(etag) BETWEEN 1 AND 1024)`,
];

/** Migration 4 of the file storage module. */
export const filesMigration0004: Migration = {
  version: 4,
  name: "multipart_uploads",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
