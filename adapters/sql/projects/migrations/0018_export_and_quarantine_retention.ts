/**
 * Projects migration 18: retention of exports and of quarantined content (spec, Relationships 5;
 * core/projects/TrashPurge.ts when this was written).
 * - Exports: a new status `expired` (the object was deleted after retention). Migration 13's
 *   moves gain done → expired, and nothing else: a pending or failed export never expires (a
 *   failed one wrote no object), and an expired one stays expired. SQLite cannot change a CHECK
 *   in place, so `pm_exports` is rebuilt with its rows, and its migration-13 triggers are made
 *   again (dropping the table dropped them). A partial index serves the purge's read of done
 *   exports oldest first.
 * - Attachments: `content_purged_at`, when the purge deleted an infected or scan_failed
 *   attachment's object (the row and its status stay). It is set only on those two statuses
 *   (a CHECK on both dialects) and, once set, never changes or clears (a trigger). A partial
 *   index serves the purge's read of quarantined content not yet deleted, oldest verdict first.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const exportStatuses = `('pending', 'done', 'failed', 'expired')`;
const exportMoves = ["pending>done", "pending>failed", "done>expired"].map((m) => `'${m}'`).join(", ");
const exportHeld = ["id", "workspace_id", "requested_by", "object_key"];
const quarantined = `('infected', 'scan_failed')`;

const exportExpiryIndex = `CREATE INDEX pm_exports_expiry ON pm_exports (completed_at, id) WHERE status = 'done'`;
const quarantineIndex = `CREATE INDEX pm_attachments_quarantine_expiry ON pm_attachments (scanned_at, id)
  WHERE status IN ${quarantined} AND content_purged_at IS NULL`;

const sqlite = (): string[] => {
  const c = columnTypes("sqlite");
  return [
    `CREATE TABLE pm_exports_next (
      id ${c.text} PRIMARY KEY,
      workspace_id ${c.text} NOT NULL REFERENCES pm_workspaces (id),
      requested_by ${c.text} NOT NULL,
      status ${c.text} NOT NULL CHECK (status IN ${exportStatuses}),
      object_key ${c.text} NOT NULL UNIQUE,
      size ${c.bigint} CHECK (size >= 0),
      sha256 ${c.text},
      line_count ${c.bigint},
      error ${c.text},
      created_at ${c.time} NOT NULL,
      completed_at ${c.time},
      CHECK (status <> 'done' OR (size IS NOT NULL AND sha256 IS NOT NULL AND completed_at IS NOT NULL))
    )`,
    `INSERT INTO pm_exports_next (id, workspace_id, requested_by, status, object_key, size, sha256, line_count, error, created_at, completed_at)
     SELECT id, workspace_id, requested_by, status, object_key, size, sha256, line_count, error, created_at, completed_at FROM pm_exports`,
    `DROP TABLE pm_exports`,
    `ALTER TABLE pm_exports_next RENAME TO pm_exports`,
    `CREATE TRIGGER pm_exports_held_fixed BEFORE UPDATE ON pm_exports
     WHEN ${exportHeld.map((col) => `NEW.${col} IS NOT OLD.${col}`).join(" OR ")}
     BEGIN SELECT RAISE(ABORT, 'pm_exports: what an export holds never changes'); END`,
    `CREATE TRIGGER pm_exports_status_moves BEFORE UPDATE OF status ON pm_exports
     WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${exportMoves})
     BEGIN SELECT RAISE(ABORT, 'pm_exports: this status move is not allowed'); END`,
    exportExpiryIndex,
    `ALTER TABLE pm_attachments ADD COLUMN content_purged_at ${c.time}
     CONSTRAINT pm_attachments_content_purged_quarantined CHECK (content_purged_at IS NULL OR status IN ${quarantined})`,
    `CREATE TRIGGER pm_attachments_content_purged_final BEFORE UPDATE OF content_purged_at ON pm_attachments
     WHEN OLD.content_purged_at IS NOT NULL AND NEW.content_purged_at IS NOT OLD.content_purged_at
     BEGIN SELECT RAISE(ABORT, 'pm_attachments: deleted content never comes back'); END`,
    quarantineIndex,
  ];
};

const postgres = (): string[] => [
  `ALTER TABLE pm_exports DROP CONSTRAINT pm_exports_status_check`,
  `ALTER TABLE pm_exports ADD CONSTRAINT pm_exports_status_check CHECK (status IN ${exportStatuses})`,
  // Migration 13's function with the new move (its trigger keeps calling it).
  `CREATE OR REPLACE FUNCTION pm_exports_row_rules() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${exportHeld.map((col) => `NEW.${col} IS DISTINCT FROM OLD.${col}`).join(" OR ")} THEN
       RAISE EXCEPTION 'pm_exports: what an export holds never changes' USING ERRCODE = 'check_violation';
     END IF;
     IF NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${exportMoves}) THEN
       RAISE EXCEPTION 'pm_exports: this status move is not allowed' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  exportExpiryIndex,
  `ALTER TABLE pm_attachments ADD COLUMN content_purged_at timestamptz`,
  `ALTER TABLE pm_attachments ADD CONSTRAINT pm_attachments_content_purged_quarantined CHECK (content_purged_at IS NULL OR status IN ${quarantined})`,
  `CREATE FUNCTION pm_attachments_content_purged_final() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF OLD.content_purged_at IS NOT NULL AND NEW.content_purged_at IS DISTINCT FROM OLD.content_purged_at THEN
       RAISE EXCEPTION 'pm_attachments: deleted content never comes back' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER pm_attachments_content_purged_final BEFORE UPDATE OF content_purged_at ON pm_attachments
   FOR EACH ROW EXECUTE FUNCTION pm_attachments_content_purged_final()`,
  quarantineIndex,
];

const statements = (dialect: SqlDialect): string[] => (dialect === "sqlite" ? sqlite() : postgres());

/** Migration 18 of the projects module. */
export const projectsMigration0018ExportAndQuarantineRetention: Migration = {
  version: 18,
  name: "export_and_quarantine_retention",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
