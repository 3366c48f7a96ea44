/**
 * Projects migration 13: attachment and export states move only along their tables, in the
 * database (docs/decisions.md, "Project management (slice 2)"). The code's moves are conditional
 * updates on the state it read; the database now also refuses, on both dialects:
 * - an attachment status move other than pending → quarantined | purging and
 *   quarantined → clean | infected | scan_failed (as core/projects/Attachments.ts,
 *   AttachmentScan.ts and TrashPurge.ts move them when this was written): a verdict is final, so
 *   an infected or failed scan never becomes downloadable and nothing is clean unscanned;
 * - a change of what an attachment holds (id, workspace, project, task, uploader, object key,
 *   size, checksum), and deleting an attachment that is not `purging` (only expired staging is
 *   hard-deleted);
 * - an export status move other than pending → done | failed, and a change of its id,
 *   workspace, requester or object key.
 */
import type { Migration } from "../../Migration.js";

const attachmentMoves = ["pending>quarantined", "pending>purging", "quarantined>clean", "quarantined>infected", "quarantined>scan_failed"]
  .map((m) => `'${m}'`)
  .join(", ");
const attachmentHeld = ["id", "workspace_id", "project_id", "task_id", "uploaded_by", "object_key", "size", "sha256"];
const exportMoves = ["pending>done", "pending>failed"].map((m) => `'${m}'`).join(", ");
const exportHeld = ["id", "workspace_id", "requested_by", "object_key"];

const sqliteRules = (table: string, held: string[], moves: string, what: string): string[] => [
  `CREATE TRIGGER ${table}_held_fixed BEFORE UPDATE ON ${table}
   WHEN ${held.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")}
   BEGIN SELECT RAISE(ABORT, '${table}: what ${what} holds never changes'); END`,
  `CREATE TRIGGER ${table}_status_moves BEFORE UPDATE OF status ON ${table}
   WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves})
   BEGIN SELECT RAISE(ABORT, '${table}: this status move is not allowed'); END`,
];

const postgresRules = (table: string, held: string[], moves: string, what: string): string[] => [
  `CREATE FUNCTION ${table}_row_rules() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${held.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
       RAISE EXCEPTION '${table}: what ${what} holds never changes' USING ERRCODE = 'check_violation';
     END IF;
     IF NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves}) THEN
       RAISE EXCEPTION '${table}: this status move is not allowed' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER ${table}_row_rules BEFORE UPDATE ON ${table} FOR EACH ROW EXECUTE FUNCTION ${table}_row_rules()`,
];

/** Migration 13 of the projects module. */
export const projectsMigration0013AttachmentExportRowRules: Migration = {
  version: 13,
  name: "attachment_export_row_rules",
  sqlite: [
    ...sqliteRules("pm_attachments", attachmentHeld, attachmentMoves, "an attachment"),
    `CREATE TRIGGER pm_attachments_deleted_only_purging BEFORE DELETE ON pm_attachments
     WHEN OLD.status <> 'purging'
     BEGIN SELECT RAISE(ABORT, 'pm_attachments: only a purging attachment is deleted'); END`,
    ...sqliteRules("pm_exports", exportHeld, exportMoves, "an export"),
  ],
  postgres: [
    ...postgresRules("pm_attachments", attachmentHeld, attachmentMoves, "an attachment"),
    `CREATE FUNCTION pm_attachments_deleted_only_purging() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF OLD.status <> 'purging' THEN
         RAISE EXCEPTION 'pm_attachments: only a purging attachment is deleted' USING ERRCODE = 'restrict_violation';
       END IF;
       RETURN OLD;
     END $$`,
    `CREATE TRIGGER pm_attachments_deleted_only_purging BEFORE DELETE ON pm_attachments FOR EACH ROW EXECUTE FUNCTION pm_attachments_deleted_only_purging()`,
    ...postgresRules("pm_exports", exportHeld, exportMoves, "an export"),
  ],
};
