/**
 * File storage migration 20: a root node's name holder sees the node (core/files/RootNameHandover.ts).
 * At the root a member sees a node only through a grant on it or on the drive root, so:
 *   - a trigger refuses deleting a grant that would leave the holder of an active root node with
 *     neither (the revocation hands the name on first);
 *   - an active root node whose holder already sees it through neither (revoked before this rule)
 *     is held by no member: its own id becomes its holder, and its version advances by one, as
 *     every change of a node does (files migration 15). Its owners see it as before.
 */
import type { Migration } from "../../Migration.js";

const blindHolder = "fs_acl_entries: a grant is removed only when it leaves no root name holder without sight of the node";

const isRootChild = (n: string) => `${n}.parent_id IN (SELECT d.root_node_id FROM fs_drives d WHERE d.workspace_id = ${n}.workspace_id)`;

const backfill = `UPDATE fs_nodes SET root_holder = id, version = version + 1
  WHERE trashed_at IS NULL AND purged_at IS NULL AND root_holder IS NOT NULL AND root_holder <> id AND ${isRootChild("fs_nodes")}
  AND NOT EXISTS (SELECT 1 FROM fs_acl_entries a WHERE a.workspace_id = fs_nodes.workspace_id AND a.user_id = fs_nodes.root_holder AND a.node_id IN (fs_nodes.id, fs_nodes.parent_id))`;

/** True when deleting OLD leaves OLD.user_id holding an active root node they no longer see. */
const leavesHolderBlind = `EXISTS (
  SELECT 1 FROM fs_nodes n
  WHERE n.workspace_id = OLD.workspace_id AND (n.id = OLD.node_id OR n.parent_id = OLD.node_id)
    AND n.root_holder = OLD.user_id AND n.trashed_at IS NULL AND ${isRootChild("n")}
    AND NOT EXISTS (
      SELECT 1 FROM fs_acl_entries a
      WHERE a.workspace_id = n.workspace_id AND a.user_id = OLD.user_id AND a.node_id IN (n.id, n.parent_id) AND a.node_id <> OLD.node_id
    )
)`;

const sqlite = [
  backfill,
  `CREATE TRIGGER fs_acl_entries_root_holder_sees BEFORE DELETE ON fs_acl_entries FOR EACH ROW WHEN ${leavesHolderBlind} BEGIN SELECT RAISE(ABORT, '${blindHolder}'); END`,
];

const postgres = [
  backfill,
  `CREATE FUNCTION fs_acl_entries_root_holder_sees() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${leavesHolderBlind} THEN RAISE EXCEPTION '${blindHolder}' USING ERRCODE = 'check_violation'; END IF;
     RETURN OLD;
   END $$`,
  `CREATE TRIGGER fs_acl_entries_root_holder_sees BEFORE DELETE ON fs_acl_entries FOR EACH ROW EXECUTE FUNCTION fs_acl_entries_root_holder_sees()`,
];

/** Migration 20 of the file storage module. */
export const filesMigration0020: Migration = {
  version: 20,
  name: "root_holder_sees_node",
  sqlite,
  postgres,
};
