/**
 * File storage migration 17: `fs_audit_exports.object_removal_at`, when the removal of a done
 * export's object was scheduled for (its completion plus the retention). The export job sets it
 * with the completion; the daily run schedules the removal of every done export past retention
 * that has none (those finished before the retention existed) and sets it. Once set it never
 * changes, and only a done export has one.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";

const doneOnly = "fs_audit_exports: only a done export has its object removal scheduled";
const fixed = "fs_audit_exports: a scheduled object removal never changes";

const sqlite = [
  `ALTER TABLE fs_audit_exports ADD COLUMN object_removal_at ${columnTypes("sqlite").time}`,
  `CREATE TRIGGER fs_audit_exports_removal_fixed BEFORE UPDATE ON fs_audit_exports FOR EACH ROW WHEN OLD.object_removal_at IS NOT NULL AND NEW.object_removal_at IS NOT OLD.object_removal_at BEGIN SELECT RAISE(ABORT, '${fixed}'); END`,
  `CREATE TRIGGER fs_audit_exports_removal_done BEFORE UPDATE ON fs_audit_exports FOR EACH ROW WHEN NEW.object_removal_at IS NOT NULL AND NEW.status <> 'done' BEGIN SELECT RAISE(ABORT, '${doneOnly}'); END`,
  `CREATE TRIGGER fs_audit_exports_removal_inserted BEFORE INSERT ON fs_audit_exports FOR EACH ROW WHEN NEW.object_removal_at IS NOT NULL AND NEW.status <> 'done' BEGIN SELECT RAISE(ABORT, '${doneOnly}'); END`,
  `CREATE INDEX fs_audit_exports_removal_due ON fs_audit_exports (completed_at, id) WHERE status = 'done' AND object_removal_at IS NULL`,
];

const postgres = [
  `ALTER TABLE fs_audit_exports ADD COLUMN object_removal_at ${columnTypes("postgres").time}`,
  `CREATE FUNCTION fs_audit_exports_removal_rules() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF TG_OP = 'UPDATE' AND OLD.object_removal_at IS NOT NULL AND NEW.object_removal_at IS DISTINCT FROM OLD.object_removal_at THEN RAISE EXCEPTION '${fixed}' USING ERRCODE = 'check_violation'; END IF;
     IF NEW.object_removal_at IS NOT NULL AND NEW.status <> 'done' THEN RAISE EXCEPTION '${doneOnly}' USING ERRCODE = 'check_violation'; END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER fs_audit_exports_removal_rules BEFORE INSERT OR UPDATE ON fs_audit_exports FOR EACH ROW EXECUTE FUNCTION fs_audit_exports_removal_rules()`,
  `CREATE INDEX fs_audit_exports_removal_due ON fs_audit_exports (completed_at, id) WHERE status = 'done' AND object_removal_at IS NULL`,
];

/** Migration 17 of the file storage module. */
export const filesMigration0017: Migration = {
  version: 17,
  name: "audit_export_removal",
  sqlite,
  postgres,
};
