/**
 * File storage migration 3: retention.
 * - The change log stays append-only except for pruning: a row may be deleted only when its seq is
 *   at or below its drive's `pruned_through_seq` (the retention mark, which only advances); every
 *   UPDATE, any other DELETE and TRUNCATE are still refused by the database.
 * - `fs_nodes (trashed_at, id)` of trash roots, the retention purge's keyset.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const refusal = "fs_changes: only rows at or below the drive pruned_through_seq may be deleted";

const statements = (dialect: SqlDialect): string[] => [
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
];

/** Migration 3 of the file storage module. */
export const filesMigration0003: Migration = {
  version: 3,
  name: "retention",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
