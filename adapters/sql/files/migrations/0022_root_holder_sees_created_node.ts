/**
 * File storage migration 22: a create gives an active root node's name only to a member who sees
 * it (core/files/RootNames.ts), the create's half of migration 21's rule. A create inserts the
 * node before its creator's owner grant (the grant's foreign key needs the node), so the node's
 * insert cannot be checked without a deferred trigger (none on SQLite) or a table rebuild. Its
 * `node.created` change is written last, after the grant, in the same transaction
 * (core/files/CreateFolder.ts `insertNode`, the one create path of folders, uploads and
 * extractions): a trigger refuses that change when the node is an active child of the root held by
 * a member who has no grant on it or on the root. A node held by its own id, or below the root,
 * passes; other change types are migration 21's to check (their updates are).
 */
import type { Migration } from "../../Migration.js";

const blindHolder = "fs_changes: a create gives a root name only to a member who sees the node";

/** True when NEW's node is an active child of the root whose member holder has no grant on it or on the root. */
const holderBlind = `EXISTS (
  SELECT 1 FROM fs_nodes n
  WHERE n.workspace_id = NEW.workspace_id AND n.id = NEW.node_id
    AND n.root_holder IS NOT NULL AND n.root_holder <> n.id AND n.trashed_at IS NULL
    AND n.parent_id IN (SELECT d.root_node_id FROM fs_drives d WHERE d.workspace_id = n.workspace_id)
    AND NOT EXISTS (
      SELECT 1 FROM fs_acl_entries a WHERE a.workspace_id = n.workspace_id AND a.user_id = n.root_holder AND a.node_id IN (n.id, n.parent_id)
    )
)`;

const sqlite = [
  `CREATE TRIGGER fs_changes_created_holder_sees BEFORE INSERT ON fs_changes FOR EACH ROW
   WHEN NEW.type = 'node.created' AND ${holderBlind} BEGIN SELECT RAISE(ABORT, '${blindHolder}'); END`,
];

const postgres = [
  `CREATE FUNCTION fs_changes_created_holder_sees() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${holderBlind} THEN RAISE EXCEPTION '${blindHolder}' USING ERRCODE = 'check_violation'; END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER fs_changes_created_holder_sees BEFORE INSERT ON fs_changes FOR EACH ROW
   WHEN (NEW.type = 'node.created') EXECUTE FUNCTION fs_changes_created_holder_sees()`,
];

/** Migration 22 of the file storage module. */
export const filesMigration0022: Migration = {
  version: 22,
  name: "root_holder_sees_created_node",
  sqlite,
  postgres,
};
