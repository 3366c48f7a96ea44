/**
 * File storage migration 10: `node.entered_view` changes (a node, with its subtree, that came into
 * one user's view: granted to them, moved under a grant of theirs, or the drive's root when they
 * are invited back), addressed to that user as a `node.left_view` change is. The database keeps
 * the pairing: a left-view or entered-view change names its recipient and no other change does.
 * As migration 7: Postgres replaces the two CHECKs; SQLite cannot change a CHECK, so it copies the
 * log into a new table and recreates its triggers (monotonic seq, no update, prune-only delete)
 * and the index of the changes addressed to one user (migration 8).
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";

const types = `'node.created', 'node.renamed', 'node.moved', 'node.trashed', 'node.restored', 'version.published', 'node.left_view', 'node.entered_view'`;
const recipientPairing = `CHECK ((type IN ('node.left_view', 'node.entered_view')) = (recipient_id IS NOT NULL))`;
const pruneRefusal = "fs_changes: only rows at or below the drive pruned_through_seq may be deleted";
const recipientIndex = `CREATE INDEX fs_changes_recipient ON fs_changes (workspace_id, recipient_id, seq) WHERE recipient_id IS NOT NULL`;

const postgres = [
  `ALTER TABLE fs_changes DROP CONSTRAINT fs_changes_type_check`,
  `ALTER TABLE fs_changes ADD CONSTRAINT fs_changes_type_check CHECK (type IN (${types}))`,
  `ALTER TABLE fs_changes DROP CONSTRAINT fs_changes_recipient_check`,
  `ALTER TABLE fs_changes ADD CONSTRAINT fs_changes_recipient_check ${recipientPairing}`,
];

const c = columnTypes("sqlite");
const sqlite = [
  `CREATE TABLE fs_changes_with_entered_view (
    workspace_id ${c.text} NOT NULL REFERENCES fs_drives (workspace_id),
    seq ${c.bigint} NOT NULL CHECK (seq >= 1),
    node_id ${c.text} NOT NULL,
    type ${c.text} NOT NULL CHECK (type IN (${types})),
    version_id ${c.text},
    actor_id ${c.text} NOT NULL,
    created_at ${c.time} NOT NULL,
    recipient_id ${c.text},
    PRIMARY KEY (workspace_id, seq),
    FOREIGN KEY (workspace_id, node_id) REFERENCES fs_nodes (workspace_id, id),
    ${recipientPairing}
  )`,
  `INSERT INTO fs_changes_with_entered_view (workspace_id, seq, node_id, type, version_id, actor_id, created_at, recipient_id)
    SELECT workspace_id, seq, node_id, type, version_id, actor_id, created_at, recipient_id FROM fs_changes`,
  `DROP TABLE fs_changes`,
  `ALTER TABLE fs_changes_with_entered_view RENAME TO fs_changes`,
  `CREATE TRIGGER fs_changes_monotonic BEFORE INSERT ON fs_changes ` +
    `WHEN NEW.seq <= COALESCE((SELECT max(seq) FROM fs_changes WHERE workspace_id = NEW.workspace_id), 0) ` +
    `BEGIN SELECT RAISE(ABORT, 'fs_changes: seq is not above the last of its workspace'); END`,
  `CREATE TRIGGER fs_changes_append_only_update BEFORE UPDATE ON fs_changes BEGIN SELECT RAISE(ABORT, 'fs_changes is append-only'); END`,
  `CREATE TRIGGER fs_changes_prune_only BEFORE DELETE ON fs_changes ` +
    `WHEN OLD.seq > COALESCE((SELECT pruned_through_seq FROM fs_drives WHERE workspace_id = OLD.workspace_id), 0) ` +
    `BEGIN SELECT RAISE(ABORT, '${pruneRefusal}'); END`,
  recipientIndex,
];

/** Migration 10 of the file storage module. */
export const filesMigration0010: Migration = {
  version: 10,
  name: "changes_entered_view",
  sqlite,
  postgres,
};
