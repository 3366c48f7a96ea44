/**
 * File storage migration 21: an update that gives an active root node a name holder gives one who
 * sees it (core/files/RootNames.ts), the other half of migration 20's rule. At the root a member
 * sees a node only through a grant on it or on the drive root, so a trigger refuses an update
 * that makes a member the holder of an active child of the root (a new holder, a move into the
 * root, a restore there) while they have neither. The node's own id (held by no member) and a
 * holder kept by an update of other columns pass.
 *
 * Updates only: a create inserts the node before its creator's owner grant (the grant's foreign
 * key needs the node), in the same transaction (core/files/CreateFolder.ts `insertNode`). An
 * insert check would have to wait for the commit, which SQLite cannot (no deferred triggers), and
 * a deferred one on Postgres would refuse the bare inserts of the repository's own tests. Every
 * update path grants first: a move into the root gives the mover their grant before the update,
 * a rename or restore there is made by a member who sees the node, the handover passes the name
 * to a member who sees it.
 */
import type { Migration } from "../../Migration.js";

const blindHolder = "fs_nodes: an update gives a root name only to a member who sees the node";

const isRootChild = "NEW.parent_id IN (SELECT d.root_node_id FROM fs_drives d WHERE d.workspace_id = NEW.workspace_id)";

/** NEW is active and held by a member, and this update gave it that holder, that place or that life (`differs`: the dialect's null-safe inequality). */
const givesHolder = (differs: string) =>
  `NEW.root_holder IS NOT NULL AND NEW.root_holder <> NEW.id AND NEW.trashed_at IS NULL AND (NEW.root_holder ${differs} OLD.root_holder OR NEW.parent_id ${differs} OLD.parent_id OR OLD.trashed_at IS NOT NULL)`;

/** True when NEW's holder has no grant on NEW or on its parent, the drive root. */
const holderBlind = `${isRootChild} AND NOT EXISTS (
  SELECT 1 FROM fs_acl_entries a WHERE a.workspace_id = NEW.workspace_id AND a.user_id = NEW.root_holder AND a.node_id IN (NEW.id, NEW.parent_id)
)`;

const sqlite = [
  `CREATE TRIGGER fs_nodes_root_holder_given_sight BEFORE UPDATE OF parent_id, root_holder, trashed_at ON fs_nodes FOR EACH ROW
   WHEN ${givesHolder("IS NOT")} AND ${holderBlind} BEGIN SELECT RAISE(ABORT, '${blindHolder}'); END`,
];

const postgres = [
  `CREATE FUNCTION fs_nodes_root_holder_given_sight() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF ${holderBlind} THEN RAISE EXCEPTION '${blindHolder}' USING ERRCODE = 'check_violation'; END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER fs_nodes_root_holder_given_sight BEFORE UPDATE OF parent_id, root_holder, trashed_at ON fs_nodes FOR EACH ROW
   WHEN (${givesHolder("IS DISTINCT FROM")}) EXECUTE FUNCTION fs_nodes_root_holder_given_sight()`,
];

/** Migration 21 of the file storage module. */
export const filesMigration0021: Migration = {
  version: 21,
  name: "root_holder_given_sight",
  sqlite,
  postgres,
};
