/**
 * File storage migration 3: retention, archive extraction, thumbnails and audit exports.
 * - The change log stays append-only except for pruning: a row may be deleted only when its seq is
 *   at or below its drive's `pruned_through_seq` (the retention mark, which only advances); every
 *   UPDATE, any other DELETE and TRUNCATE are still refused by the database.
 * - `fs_nodes (trashed_at, id)` of trash roots, the retention purge's keyset.
 * - `fs_extractions`: archive extractions. A running one holds its reservation (CHECK: only a
 *   running extraction holds bytes), a failed one names its failure. It names nodes and the
 *   version without foreign keys: the record outlives a purge of the archive or destination.
 * - `fs_thumbnails`: one per published image version (the version's key), `ready` with its
 *   object or recorded as `unsupported` / `rejected`; the trash purge deletes them with their versions.
 * - `fs_audit_exports`: audit trail exports (JSON lines in the object store); a done one names
 *   its size, checksum and line count, a failed one its error.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const refusal = "fs_changes: only rows at or below the drive pruned_through_seq may be deleted";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
  ...(dialect === "postgres"
    ? [
        `DROP TRIGGER IF EXISTS fs_changes_append_only ON fs_changes`,
        `CREATE TRIGGER fs_changes_append_only BEFORE UPDATE ON fs_changes FOR EACH ROW EXECUTE FUNCTION domainkit_refuse_change()`,
        `CREATE OR REPLACE FUNCTION fs_changes_prune_only() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN ` +
          `IF OLD.seq > COALESCE((SELECT pruned_through_seq FROM fs_drives WHERE workspace_id = OLD.workspace_id), 0) THEN ` +
          `RAISE EXCEPTION '${refusal}' USING ERRCODE = 'restrict_violation'; END IF; ` +
          `RETURN OLD; END $$`,
        `CREATE TRIGGER fs_changes_prune_only BEFORE DELETE ON fs_changes FOR EACH ROW EXECUTE FUNCTION fs_changes_prune_only()`,
      ]
    : [
        `DROP TRIGGER IF EXISTS fs_changes_append_only_delete`,
        `CREATE TRIGGER fs_changes_prune_only BEFORE DELETE ON fs_changes ` +
          `WHEN OLD.seq > COALESCE((SELECT pruned_through_seq FROM fs_drives WHERE workspace_id = OLD.workspace_id), 0) ` +
          `BEGIN SELECT RAISE(ABORT, '${refusal}'); END`,
      ]),
  `CREATE INDEX fs_nodes_trash_due ON fs_nodes (trashed_at, id) WHERE trashed_at IS NOT NULL AND trash_root_id = id`,
  `CREATE TABLE fs_extractions (
    id ${c.text} PRIMARY KEY,
    workspace_id ${c.text} NOT NULL REFERENCES fs_drives (workspace_id),
    archive_node_id ${c.text} NOT NULL,
    archive_version_id ${c.text} NOT NULL,
    parent_id ${c.text} NOT NULL,
    status ${c.text} NOT NULL CHECK (status IN ('queued', 'running', 'succeeded', 'failed')),
    reserved_bytes ${c.bigint} NOT NULL CHECK (reserved_bytes >= 0),
    failure_code ${c.text},
    failure_detail ${c.text},
    file_count ${c.int} NOT NULL CHECK (file_count >= 0),
    folder_count ${c.int} NOT NULL CHECK (folder_count >= 0),
    extracted_bytes ${c.bigint} NOT NULL CHECK (extracted_bytes >= 0),
    created_by ${c.text} NOT NULL,
    created_at ${c.time} NOT NULL,
    updated_at ${c.time} NOT NULL,
    finished_at ${c.time},
    UNIQUE (workspace_id, id),
    CHECK (status = 'running' OR reserved_bytes = 0),
    CHECK ((status = 'failed') = (failure_code IS NOT NULL)),
    CHECK ((status IN ('succeeded', 'failed')) = (finished_at IS NOT NULL))
  )`,
  `CREATE INDEX fs_extractions_running ON fs_extractions (workspace_id, status)`,
  `CREATE TABLE fs_thumbnails (
    version_id ${c.text} PRIMARY KEY,
    workspace_id ${c.text} NOT NULL,
    node_id ${c.text} NOT NULL,
    status ${c.text} NOT NULL CHECK (status IN ('ready', 'unsupported', 'rejected')),
    object_key ${c.text},
    content_type ${c.text},
    width ${c.int},
    height ${c.int},
    detail ${c.text},
    created_at ${c.time} NOT NULL,
    FOREIGN KEY (workspace_id, node_id, version_id) REFERENCES fs_file_versions (workspace_id, node_id, id),
    CHECK ((status = 'ready') = (object_key IS NOT NULL AND content_type IS NOT NULL AND width IS NOT NULL AND height IS NOT NULL))
  )`,
  `CREATE TABLE fs_audit_exports (
    id ${c.text} PRIMARY KEY,
    workspace_id ${c.text} NOT NULL REFERENCES fs_drives (workspace_id),
    requested_by ${c.text} NOT NULL,
    status ${c.text} NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
    object_key ${c.text} NOT NULL,
    size_bytes ${c.bigint},
    sha256 ${c.text},
    line_count ${c.int},
    error ${c.text},
    created_at ${c.time} NOT NULL,
    completed_at ${c.time},
    CHECK ((status = 'done') = (size_bytes IS NOT NULL AND sha256 IS NOT NULL AND line_count IS NOT NULL)),
    CHECK ((status = 'failed') = (error IS NOT NULL)),
    CHECK ((status = 'pending') = (completed_at IS NULL))
  )`,
  ];
};

/** Migration 3 of the file storage module. */
export const filesMigration0003: Migration = {
  version: 3,
  name: "retention_and_background_work",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
