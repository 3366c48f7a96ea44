/**
 * TrashPurgeRepository over Kysely (both dialects). Every statement walks the subtree with the
 * same recursive CTE (every node under the root, trashed or not), so a subtree of any size is
 * never turned into a parameter list. The walk's step is `sub CROSS JOIN fs_nodes`, which keeps
 * SQLite seeking children by parent (SqlNodesRepository explains). The legal hold check also walks
 * the root's ancestors up the parent chain.
 */
import { Effect } from "effect";
import { sql, type RawBuilder } from "kysely";
import type { TrashPurgeRepository } from "../../../ports/files/TrashPurgeRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** `WITH RECURSIVE sub (id)`: the root and every node under it. */
const subtree = (workspaceId: string, rootId: string): RawBuilder<unknown> => sql`
  WITH RECURSIVE sub (id) AS (
    SELECT id FROM fs_nodes WHERE workspace_id = ${workspaceId} AND id = ${rootId}
    UNION ALL
    SELECT n.id FROM sub s CROSS JOIN fs_nodes n WHERE n.parent_id = s.id AND n.workspace_id = ${workspaceId}
  )`;

/** `WITH RECURSIVE up (id)`: every ancestor of `nodeId` (its parent, the parent's parent, ... the root folder). */
const ancestors = (workspaceId: string, nodeId: string): RawBuilder<unknown> => sql`
  WITH RECURSIVE up (id) AS (
    SELECT n.parent_id FROM fs_nodes n WHERE n.workspace_id = ${workspaceId} AND n.id = ${nodeId} AND n.parent_id IS NOT NULL
    UNION ALL
    SELECT n.parent_id FROM up u CROSS JOIN fs_nodes n WHERE n.id = u.id AND n.workspace_id = ${workspaceId} AND n.parent_id IS NOT NULL
  )`;

/** Builds the trash purge repository over `db`. */
export const makeSqlTrashPurgeRepository = (db: SqlDatabase): TrashPurgeRepository => {
  const f = featuresFor(db);
  const yes = db.dialect === "postgres" ? sql`true` : sql`1`;
  return {
    dueRoots: (before, after, limit) =>
      runQuery(db, (ex) => {
        const q = ex
          .selectFrom("fs_nodes")
          .select(["workspace_id", "id", "trashed_at"])
          .where("trashed_at", "is not", null)
          .whereRef("trash_root_id", "=", "id")
          .where("purged_at", "is", null)
          .where("trashed_at", "<", f.timeToDb(before));
        const paged =
          after === null
            ? q
            : q.where((eb) =>
                eb.or([eb("trashed_at", ">", f.timeToDb(after[0])), eb.and([eb("trashed_at", "=", f.timeToDb(after[0])), eb("id", ">", after[1])])]),
              );
        return paged.orderBy("trashed_at").orderBy("id").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((row) => ({ workspaceId: String(row.workspace_id), nodeId: String(row.id), trashedAt: f.timeFromDb(row.trashed_at) }))),
      ),
    survey: (workspaceId, rootId) =>
      runQuery(db, async (ex) => {
        const nodes = await sql<Record<string, unknown>>`${subtree(workspaceId, rootId)}
          SELECT count(*) AS node_count,
                 coalesce(sum(CASE WHEN n.legal_hold = ${yes} THEN 1 ELSE 0 END), 0) AS held,
                 coalesce(sum(CASE WHEN n.trashed_at IS NULL THEN 1 ELSE 0 END), 0) AS active
          FROM sub s CROSS JOIN fs_nodes n WHERE n.id = s.id`.execute(ex);
        const open = await sql<Record<string, unknown>>`${subtree(workspaceId, rootId)}
          SELECT count(*) AS open FROM fs_upload_sessions u
          WHERE u.workspace_id = ${workspaceId} AND u.status = 'open'
            AND (u.parent_id IN (SELECT id FROM sub) OR u.node_id IN (SELECT id FROM sub))`.execute(ex);
        const versions = await sql<Record<string, unknown>>`${subtree(workspaceId, rootId)}
          SELECT count(*) AS versions FROM fs_file_versions v WHERE v.workspace_id = ${workspaceId} AND v.node_id IN (SELECT id FROM sub)`.execute(ex);
        const objects = await sql<Record<string, unknown>>`${subtree(workspaceId, rootId)}
          SELECT DISTINCT v.object_key, v.size_bytes FROM fs_file_versions v
          WHERE v.workspace_id = ${workspaceId} AND v.node_id IN (SELECT id FROM sub)
            AND NOT EXISTS (
              SELECT 1 FROM fs_file_versions o
              WHERE o.workspace_id = ${workspaceId} AND o.object_key = v.object_key AND o.node_id NOT IN (SELECT id FROM sub)
            )
          ORDER BY v.object_key`.execute(ex);
        const thumbnails = await sql<Record<string, unknown>>`${subtree(workspaceId, rootId)}
          SELECT t.object_key FROM fs_thumbnails t WHERE t.workspace_id = ${workspaceId} AND t.node_id IN (SELECT id FROM sub) AND t.object_key IS NOT NULL`.execute(ex);
        const changes = await sql<Record<string, unknown>>`${subtree(workspaceId, rootId)}
          SELECT coalesce(max(c.seq), 0) AS seq FROM fs_changes c WHERE c.workspace_id = ${workspaceId} AND c.node_id IN (SELECT id FROM sub)`.execute(ex);
        // A legal hold on a folder protects what was trashed out of it (spec: purge follows legal hold).
        const heldAbove = await sql<Record<string, unknown>>`${ancestors(workspaceId, rootId)}
          SELECT count(*) AS held FROM up u CROSS JOIN fs_nodes n WHERE n.workspace_id = ${workspaceId} AND n.id = u.id AND n.legal_hold = ${yes}`.execute(ex);
        const counts = nodes.rows[0] ?? {};
        return {
          nodeCount: toNumber(counts.node_count),
          held: toNumber(counts.held) > 0 || toNumber(heldAbove.rows[0]?.held) > 0,
          active: toNumber(counts.active) > 0,
          openUploads: toNumber(open.rows[0]?.open) > 0,
          versionCount: toNumber(versions.rows[0]?.versions),
          releasedObjects: objects.rows.map((row) => ({ key: String(row.object_key), sizeBytes: toNumber(row.size_bytes) })),
          thumbnailKeys: thumbnails.rows.map((row) => String(row.object_key)),
          lastChangeSeq: toNumber(changes.rows[0]?.seq),
        };
      }),
    reduceToStubs: (workspaceId, rootId, at) =>
      Effect.asVoid(
        runQuery(db, async (ex) => {
          const inSub = sql`IN (SELECT id FROM sub)`;
          const sessions = sql`SELECT id FROM fs_upload_sessions WHERE workspace_id = ${workspaceId} AND (parent_id ${inSub} OR node_id ${inSub})`;
          const time = f.timeToDb(at);
          // Stubs first: a node no longer names a current version (the versions go below).
          await sql`${subtree(workspaceId, rootId)}
            UPDATE fs_nodes SET name = id, current_version_id = NULL, size_bytes = NULL, sha256 = NULL, content_type = NULL,
              legal_hold = ${db.dialect === "postgres" ? sql`false` : sql`0`}, purged_at = ${time}, version = version + 1, updated_at = ${time}
            WHERE workspace_id = ${workspaceId} AND id ${inSub} AND purged_at IS NULL`.execute(ex);
          await sql`${subtree(workspaceId, rootId)} DELETE FROM fs_share_links WHERE workspace_id = ${workspaceId} AND node_id ${inSub}`.execute(ex);
          await sql`${subtree(workspaceId, rootId)} DELETE FROM fs_thumbnails WHERE workspace_id = ${workspaceId} AND node_id ${inSub}`.execute(ex);
          // Search documents (their SQLite full-text rows go with them: migration 9's trigger).
          await sql`${subtree(workspaceId, rootId)} DELETE FROM fs_search_documents WHERE workspace_id = ${workspaceId} AND node_id ${inSub}`.execute(ex);
          await sql`${subtree(workspaceId, rootId)} DELETE FROM fs_file_versions WHERE workspace_id = ${workspaceId} AND node_id ${inSub}`.execute(ex);
          await sql`${subtree(workspaceId, rootId)} DELETE FROM fs_upload_parts WHERE workspace_id = ${workspaceId} AND session_id IN (${sessions})`.execute(ex);
          await sql`${subtree(workspaceId, rootId)} DELETE FROM fs_upload_sessions WHERE workspace_id = ${workspaceId} AND (parent_id ${inSub} OR node_id ${inSub})`.execute(ex);
        }),
      ),
    removeStubsOutOfWindow: (workspaceId, limit) =>
      runQuery(db, async (ex) => {
        // The top of each purged subtree: a stub whose parent is not one.
        const roots = await sql<{ id: string }>`
          SELECT n.id AS id FROM fs_nodes n JOIN fs_nodes p ON p.workspace_id = n.workspace_id AND p.id = n.parent_id
          WHERE n.workspace_id = ${workspaceId} AND n.purged_at IS NOT NULL AND p.purged_at IS NULL
          ORDER BY n.purged_at, n.id
          LIMIT ${limit}`.execute(ex);
        let deleted = 0;
        for (const { id } of roots.rows) {
          const inSub = sql`IN (SELECT id FROM sub)`;
          const left = await sql<Record<string, unknown>>`${subtree(workspaceId, id)}
            SELECT count(*) AS n FROM fs_changes c WHERE c.workspace_id = ${workspaceId} AND c.node_id ${inSub}`.execute(ex);
          if (toNumber(left.rows[0]?.n) > 0) continue;
          await sql`${subtree(workspaceId, id)} DELETE FROM fs_acl_entries WHERE workspace_id = ${workspaceId} AND node_id ${inSub}`.execute(ex);
          const nodes = await sql`${subtree(workspaceId, id)} DELETE FROM fs_nodes WHERE workspace_id = ${workspaceId} AND id ${inSub}`.execute(ex);
          deleted += toNumber(nodes.numAffectedRows ?? 0);
        }
        return deleted;
      }),
  };
};
