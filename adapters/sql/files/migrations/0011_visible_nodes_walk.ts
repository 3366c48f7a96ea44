/**
 * File storage migration 11 (Postgres only): `fs_visible_nodes(workspace, user, active_only, cap)`,
 * the nodes a user sees in a workspace — the subtrees of the nodes they hold grants on, walked
 * down by parent — as a function whose walk is index lookups by parent, whatever the statistics
 * say: each level's children read along fs_nodes_children (parent_id, name, id).
 *
 * Written inline, the walk's recursive step was planned once for every level with the planner's
 * guess of the working table (10 rows) against its guess of children per parent (the drive's
 * nodes over its few distinct parents: thousands): it hashed the drive's nodes at each level. On a
 * drive of 10 folders of 10,000 nodes a reader of a folder of 100 paid ~40 ms (a sequential scan
 * of the drive per level); by the index, ~0.3 ms. Turning hash and merge joins off was not enough:
 * planned for any parameters (a generic plan), the step became a nested loop over the drive's
 * nodes probing the working table (~0.8 s). So the function turns off every other way to read
 * fs_nodes or join it (sequential and bitmap scans, sorts, materialization), and each parent's
 * children are read in index order up to `cap`: the one plan left is a loop over the working
 * table with an index scan per parent. The `SET` clauses hold for the function's own statement
 * only (a function with `SET` is never inlined into its caller). `cap` bounds the rows it returns
 * (NULL: all) and stops the walk there: a recursive CTE is read only as far as it is fetched, and
 * the LIMIT is inside the function (a function in FROM is read whole).
 * SQLite walks the index already (its planner has no hash join to choose); it has no function.
 */
import type { Migration } from "../../Migration.js";

const visibleNodes = `CREATE FUNCTION fs_visible_nodes(p_workspace_id text, p_user_id text, p_active_only boolean, p_cap bigint)
  RETURNS TABLE (id text)
  LANGUAGE sql STABLE
  SET enable_hashjoin = off
  SET enable_mergejoin = off
  SET enable_seqscan = off
  SET enable_bitmapscan = off
  SET enable_sort = off
  SET enable_material = off
  ROWS 100
AS $$
  WITH RECURSIVE seen (id) AS (
    SELECT a.node_id FROM fs_acl_entries a WHERE a.workspace_id = p_workspace_id AND a.user_id = p_user_id
    UNION
    SELECT c.id FROM seen s CROSS JOIN LATERAL (
      SELECT n.id FROM fs_nodes n
      WHERE n.parent_id = s.id AND n.workspace_id = p_workspace_id AND (NOT p_active_only OR n.trashed_at IS NULL)
      ORDER BY n.parent_id, n.name, n.id
      LIMIT p_cap
    ) c
  )
  SELECT seen.id FROM seen LIMIT p_cap
$$`;

/** Migration 11 of the file storage module. */
export const filesMigration0011: Migration = {
  version: 11,
  name: "visible_nodes_walk",
  sqlite: [],
  postgres: [visibleNodes],
};
