/**
 * File storage migration 7: `node.left_view` changes (a node that left one user's view: moved out
 * of their reach or their grant revoked) and `fs_changes.recipient_id`, the one user such a change
 * is addressed to. The database keeps the pairing: a `node.left_view` change names its recipient
 * and no other change does. Postgres alters the table; SQLite cannot change a CHECK, so it copies
 * the log into a new table and recreates its triggers (monotonic seq, no update, prune-only delete).
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";

const types = `'node.created', 'node.renamed', 'node.moved', 'node.trashed', 'node.restored', 'version.published', 'node.left_view'`;
const recipientPairing = `CHECK ((type = 'node.left_view') = (recipient_id IS NOT NULL))`;
const pruneRefusal = "fs_changes: only rows at or below the drive pruned_through_seq may be deleted";

const postgres = [
  `ALTER TABLE fs_changes ADD COLUMN recipient_id ${columnTypes("postgres").text}`,
  `ALTER TABLE fs_changes DROP CONSTRAINT fs_changes_type_check`,
  `ALTER TABLE fs_changes ADD CONSTRAINT fs_changes_type_check CHECK (type IN (${types}))`,
  `ALTER TABLE fs_changes ADD CONSTRAINT fs_changes_recipient_check ${recipientPairing}`,
];

const c = columnTypes("sqlite");
const sqlite = [
  `CREATE TABLE fs_changes_with_recipient (
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
  `INSERT INTO fs_changes_with_recipient (workspace_id, seq, node_id, type, version_id, actor_id, created_at, recipient_id)
    SELECT workspace_id, seq, node_id, type, version_id, actor_id, created_at, NULL FROM fs_changes`,
  `DROP TABLE fs_changes`,
  `ALTER TABLE fs_changes_with_recipient RENAME TO fs_changes`,
  `CREATE TRIGGER fs_changes_monotonic BEFORE INSERT ON fs_changes ` +
    `WHEN NEW.seq <= COALESCE((SELECT max(seq) FROM fs_changes WHERE workspace_id = NEW.workspace_id), 0) ` +
    `BEGIN SELECT RAISE(ABORT, 'fs_changes: seq is not above the last of its workspace'); END`,
  `CREATE TRIGGER fs_changes_append_only_update BEFORE UPDATE ON fs_changes BEGIN SELECT RAISE(ABORT, 'fs_changes is append-only'); END`,
  `CREATE TRIGGER fs_changes_prune_only BEFORE DELETE ON fs_changes ` +
    `WHEN OLD.seq > COALESCE((SELECT pruned_through_seq FROM fs_drives WHERE workspace_id = OLD.workspace_id), 0) ` +
    `BEGIN SELECT RAISE(ABORT, '${pruneRefusal}'); END`,
];

/** Migration 7 of the file storage module. */
export const filesMigration0007: Migration = {
  version: 7,
  name: "changes_left_view",
  sqlite,
  postgres,
};
