/**
 * ChangesRepository over Kysely (both dialects). The feed's access filter is a recursive CTE of
 * the nodes under the caller's direct grants, evaluated in the query before the limit. Its step
 * is `visible CROSS JOIN fs_nodes` so SQLite seeks children by parent instead of scanning the
 * workspace per step (SqlNodesRepository explains).
 */
import { Effect } from "effect";
import { sql } from "kysely";
import { Change } from "../../../core/files/model/Change.js";
import { Node } from "../../../core/files/model/Node.js";
import type { ChangesRepository } from "../../../ports/files/ChangesRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the changes repository over `db`. */
export const makeSqlChangesRepository = (db: SqlDatabase): ChangesRepository => {
  const f = featuresFor(db);
  const changes = rowCodec(Change, f);
  const nodes = rowCodec(Node, f);
  return {
    append: (change) => Effect.asVoid(runQuery(db, (ex) => ex.insertInto("fs_changes").values(changes.toRow(change)).execute())),
    list: (req) =>
      runQuery(db, (ex) =>
        sql<Record<string, unknown>>`
          WITH RECURSIVE visible (id) AS (
            SELECT node_id FROM fs_acl_entries WHERE workspace_id = ${req.workspaceId} AND user_id = ${req.userId}
            UNION
            SELECT n.id FROM visible v CROSS JOIN fs_nodes n WHERE n.parent_id = v.id AND n.workspace_id = ${req.workspaceId}
          )
          SELECT n.*, c.seq AS change_seq, c.type AS change_type, c.version_id AS change_version_id,
                 c.actor_id AS change_actor_id, c.created_at AS change_created_at
          FROM fs_changes c JOIN fs_nodes n ON n.workspace_id = c.workspace_id AND n.id = c.node_id
          WHERE c.workspace_id = ${req.workspaceId} AND c.seq > ${req.afterSeq} AND c.node_id IN (SELECT id FROM visible)
          ORDER BY c.seq
          LIMIT ${req.limit}`.execute(ex),
      ).pipe(
        Effect.map((r) =>
          r.rows.map((row) => ({
            node: nodes.fromRow(row),
            change: changes.fromRow({
              workspace_id: row.workspace_id,
              seq: row.change_seq,
              node_id: row.id,
              type: row.change_type,
              version_id: row.change_version_id,
              actor_id: row.change_actor_id,
              created_at: row.change_created_at,
            }),
          })),
        ),
      ),
    lastSeqBefore: (workspaceId, at) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("fs_changes")
          .select((eb) => eb.fn.coalesce(eb.fn.max("seq"), sql`0`).as("seq"))
          .where("workspace_id", "=", workspaceId)
          .where("created_at", "<", f.timeToDb(at))
          .executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.seq))),
    deleteThrough: (workspaceId, seq) =>
      runQuery(db, (ex) => ex.deleteFrom("fs_changes").where("workspace_id", "=", workspaceId).where("seq", "<=", seq).executeTakeFirst()).pipe(
        Effect.map((r) => Number(r.numDeletedRows)),
      ),
  };
};
