/**
 * File storage migration 18: `fs_nodes.root_holder`, the member who holds a root node's name
 * (security audit S5, core/files/RootNames.ts). Every member may create at the drive root but
 * sees there only the nodes granted to them, so root names are unique per holder, not among all
 * root nodes: a hidden root node's name no longer collides with another member's.
 *   - the active-name UNIQUE index keys (workspace, parent, name, holder or ''); below the root
 *     the holder is null, so names stay unique among all active siblings there;
 *   - only a child of its drive's root has a holder (a trigger), so no holder can split a
 *     folder's names below the root;
 *   - existing root children get their creator, who held their name under the old rule (their
 *     version advances by one, as for every change of a node; a client's stale If-Match on one
 *     answers 412 with the current node once).
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";

const belowRoot = "fs_nodes: only a child of the drive root holds its name (root_holder)";

const index = [
  `DROP INDEX fs_nodes_active_name`,
  `CREATE UNIQUE INDEX fs_nodes_active_name ON fs_nodes (workspace_id, parent_id, name, (coalesce(root_holder, ''))) WHERE trashed_at IS NULL AND parent_id IS NOT NULL`,
];

// Every change advances a node's version (files migration 15), this one too; a purged stub never
// changes (migration 16) and never comes back, so it keeps none.
const backfill = `UPDATE fs_nodes SET root_holder = created_by, version = version + 1
  WHERE purged_at IS NULL AND parent_id IN (SELECT root_node_id FROM fs_drives WHERE fs_drives.workspace_id = fs_nodes.workspace_id)`;

/** True when NEW has a holder but is no child of its drive's root. */
const heldBelowRoot =
  `NEW.root_holder IS NOT NULL AND NOT EXISTS (SELECT 1 FROM fs_drives d WHERE d.workspace_id = NEW.workspace_id AND d.root_node_id = NEW.parent_id)`;

const sqlite = [
  `ALTER TABLE fs_nodes ADD COLUMN root_holder ${columnTypes("sqlite").text}`,
  backfill,
  ...index,
  `CREATE TRIGGER fs_nodes_root_holder_inserted BEFORE INSERT ON fs_nodes FOR EACH ROW WHEN ${heldBelowRoot} BEGIN SELECT RAISE(ABORT, '${belowRoot}'); END`,
  `CREATE TRIGGER fs_nodes_root_holder_updated BEFORE UPDATE OF parent_id, root_holder ON fs_nodes FOR EACH ROW WHEN ${heldBelowRoot} BEGIN SELECT RAISE(ABORT, '${belowRoot}'); END`,
];

const postgres = [
  `ALTER TABLE fs_nodes ADD COLUMN root_holder ${columnTypes("postgres").text}`,
  backfill,
  ...index,
  `CREATE FUNCTION fs_nodes_root_holder_rule() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${heldBelowRoot} THEN RAISE EXCEPTION '${belowRoot}' USING ERRCODE = 'check_violation'; END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER fs_nodes_root_holder_rule BEFORE INSERT OR UPDATE OF parent_id, root_holder ON fs_nodes FOR EACH ROW EXECUTE FUNCTION fs_nodes_root_holder_rule()`,
];

/** Migration 18 of the file storage module. */
export const filesMigration0018: Migration = {
  version: 18,
  name: "root_name_holders",
  sqlite,
  postgres,
};
