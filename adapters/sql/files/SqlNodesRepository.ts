/**
 * NodesRepository over Kysely (both dialects). Tree walks are recursive CTEs bounded by depth;
 * writes that may hit the active-name UNIQUE index answer `name_taken` instead of dying. Each
 * recursive step is written `FROM <queue> CROSS JOIN fs_nodes WHERE ...`: SQLite then keeps the
 * queue row outer and seeks the node by key (a plain JOIN let it scan the workspace's nodes once
 * per step); Postgres plans a CROSS JOIN with a WHERE as the inner join it is. The final join of a
 * walk's rows to their nodes is written the same way: with `ANALYZE` statistics (or after
 * `PRAGMA optimize`) SQLite otherwise scanned every node of the table and probed the walk (11 ms
 * instead of 0.1 ms on a 100,000-node drive).
 */
import { Effect } from "effect";
import { sql, type RawBuilder } from "kysely";
import { AclEntry } from "../../../core/files/model/AclEntry.js";
import { Node } from "../../../core/files/model/Node.js";
import type { NodesRepository } from "../../../ports/files/NodesRepository.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledInsert, compiledOnce, compiledUpdateIfVersion, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { runWrite } from "./sqlErrors.js";

/**
 * `WITH RECURSIVE chain (id, parent_id, depth)`: the node `id` of the workspace at depth 0, then
 * its parents up to `maxDepth`. The statement that follows joins `chain c` to the nodes. The
 * values are values or parameter slots of a query compiled once.
 */
const walkUp = (workspaceId: unknown, id: unknown, maxDepth: unknown): RawBuilder<unknown> => sql`
  WITH RECURSIVE chain (id, parent_id, depth) AS (
    SELECT id, parent_id, 0 FROM fs_nodes WHERE workspace_id = ${workspaceId} AND id = ${id} AND purged_at IS NULL
    UNION ALL
    SELECT n.id, n.parent_id, c.depth + 1 FROM chain c CROSS JOIN fs_nodes n
    WHERE n.id = c.parent_id AND n.workspace_id = ${workspaceId} AND c.depth < ${maxDepth}
  )`;

/** Builds the nodes repository over `db`. */
export const makeSqlNodesRepository = (db: SqlDatabase): NodesRepository => {
  const f = featuresFor(db);
  const nodes = rowCodec(Node, f);
  const acl = rowCodec(AclEntry, f);
  // A grant selected beside its node (both have workspace_id, created_at, ...).
  const grantPrefix = "grant__";
  // The node reads and writes of every access check, upload and folder (by id, by name, the
  // access walk, the insert, the conditional update, the owner's grant), compiled once.
  const selectWorkspaceOf = compiledOnce<{ id: string }>((ex, p) => ex.selectFrom("fs_nodes").select("workspace_id").where("id", "=", p("id")));
  const selectNode = compiledOnce<{ workspaceId: string; id: string }>((ex, p) =>
    ex.selectFrom("fs_nodes").selectAll().where("workspace_id", "=", p("workspaceId")).where("id", "=", p("id")).where("purged_at", "is", null),
  );
  // The holder compared as the active-name index keys it (files migration 18): '' for none.
  const selectActiveChild = compiledOnce<{ workspaceId: string; parentId: string; name: string; holder: string }>((ex, p) =>
    ex
      .selectFrom("fs_nodes")
      .selectAll()
      .where("workspace_id", "=", p("workspaceId"))
      .where("parent_id", "=", p("parentId"))
      .where("name", "=", p("name"))
      .where(sql`coalesce(root_holder, '')`, "=", p("holder"))
      .where("trashed_at", "is", null),
  );
  const selectWithAncestorsAndGrants = compiledOnce<{ workspaceId: string; id: string; userId: string; maxDepth: number }>((ex, p) => {
    // The chain of `ancestors` from depth 0 (the node itself), each row with the caller's grant
    // on it, if any, under prefixed names ((node_id, user_id) is unique: one grant a node).
    return sql<Record<string, unknown>>`
      ${walkUp(p("workspaceId"), p("id"), p("maxDepth"))}
      SELECT n.*, ${sql.join(acl.columns.map((column) => sql`g.${sql.ref(column)} AS ${sql.ref(grantPrefix + column)}`))}
      FROM chain c CROSS JOIN fs_nodes n
      LEFT JOIN fs_acl_entries g ON g.workspace_id = ${p("workspaceId")} AND g.node_id = n.id AND g.user_id = ${p("userId")}
      WHERE n.id = c.id AND n.workspace_id = ${p("workspaceId")}
      ORDER BY c.depth`;
  });
  const insertNode = compiledInsert("fs_nodes", nodes);
  const updateNodeIfVersion = compiledUpdateIfVersion("fs_nodes", nodes, { key: ["workspace_id", "id"], unchanging: ["created_at", "created_by"] });
  // A folder's page of children, the hottest read of the module: compiled once per shape (granted
  // children only or all; after a cursor or the first page).
  const childrenPage = (granted: boolean, afterCursor: boolean) =>
    compiledOnce<{ workspaceId: string; parentId: string; userId: string | undefined; name: string | undefined; id: string | undefined; limit: number }>((ex, p) => {
      let q = ex.selectFrom("fs_nodes").selectAll().where("workspace_id", "=", p("workspaceId")).where("parent_id", "=", p("parentId")).where("trashed_at", "is", null);
      if (granted) {
        q = q.where(({ exists, selectFrom }) =>
          exists(
            selectFrom("fs_acl_entries")
              .select(sql`1`.as("one"))
              .whereRef("fs_acl_entries.node_id", "=", "fs_nodes.id")
              .where("fs_acl_entries.user_id", "=", p("userId")),
          ),
        );
      }
      if (afterCursor) {
        // `name >= key` first: a bare OR of the two cases makes SQLite scan every child up to the
        // key (a page deep in a 100,000-child folder took 6 ms instead of 0.1 ms); with it both
        // dialects seek the (workspace, parent, name) index (bench files-children-100k-page-1000).
        q = q.where("name", ">=", p("name")).where((eb) => eb.or([eb("name", ">", p("name")), eb("id", ">", p("id"))]));
      }
      return q.orderBy("name").orderBy("id").limit(p("limit"));
    });
  const childrenPages = { all: [childrenPage(false, false), childrenPage(false, true)], granted: [childrenPage(true, false), childrenPage(true, true)] } as const;
  const upsertGrant = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("fs_acl_entries")
      .values(slotsOf(acl.columns, p))
      .onConflict((oc) => oc.columns(["node_id", "user_id"]).doUpdateSet({ role: p("role"), granted_by: p("granted_by") })),
  );
  return {
    workspaceOf: (id) =>
      runStatement(db, selectWorkspaceOf, { id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : String(row.workspace_id))),
      ),
    find: (workspaceId, id) =>
      runStatement(db, selectNode, { workspaceId, id }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : nodes.fromRow(row))),
      ),
    insert: (node) => runWrite(db, (ex) => insertNode(ex, node).then(() => "written" as const), "name_taken" as const),
    update: (node, expectedVersion) =>
      runWrite(
        db,
        async (ex) => {
          const result = await updateNodeIfVersion(ex, { record: node, expectedVersion });
          return toNumber(result.numAffectedRows ?? 0) === 1 ? ("written" as const) : ("stale" as const);
        },
        "name_taken" as const,
      ),
    findActiveChild: (workspaceId, parentId, name, rootHolder) =>
      runStatement(db, selectActiveChild, { workspaceId, parentId, name, holder: rootHolder ?? "" }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : nodes.fromRow(row))),
      ),
    ancestors: (workspaceId, id, maxDepth) =>
      runQuery(db, (ex) =>
        sql<Record<string, unknown>>`
          ${walkUp(workspaceId, id, maxDepth)}
          SELECT n.* FROM chain c CROSS JOIN fs_nodes n WHERE n.id = c.id AND n.workspace_id = ${workspaceId} AND c.depth > 0 ORDER BY c.depth`.execute(ex),
      ).pipe(Effect.map((r) => r.rows.map(nodes.fromRow))),
    findWithAncestorsAndGrants: (workspaceId, id, userId, maxDepth) =>
      runStatement(db, selectWithAncestorsAndGrants, { workspaceId, id, userId, maxDepth }).pipe(
        Effect.map(({ rows }) => {
          const [first, ...rest] = rows;
          if (first === undefined) return null;
          const grants = rows.filter((row) => row[`${grantPrefix}node_id`] != null).map((row) => acl.fromPrefixedRow(row, grantPrefix));
          return { node: nodes.fromRow(first), ancestors: rest.map(nodes.fromRow), grants };
        }),
      ),
    subtreeHeight: (workspaceId, id, cap) =>
      runQuery(db, (ex) =>
        sql<{ height: number | string | null }>`
          WITH RECURSIVE sub (id, depth) AS (
            SELECT id, 0 FROM fs_nodes WHERE workspace_id = ${workspaceId} AND id = ${id}
            UNION ALL
            SELECT n.id, s.depth + 1 FROM sub s CROSS JOIN fs_nodes n WHERE n.parent_id = s.id AND n.workspace_id = ${workspaceId} AND s.depth < ${cap}
          )
          SELECT max(depth) AS height FROM sub`.execute(ex),
      ).pipe(Effect.map((r) => Number(r.rows[0]?.height ?? 0))),
    trashSubtree: (workspaceId, rootId, at, rootVersion) =>
      runQuery(db, (ex) =>
        sql<{ id: string }>`
          WITH RECURSIVE sub (id) AS (
            SELECT id FROM fs_nodes WHERE workspace_id = ${workspaceId} AND id = ${rootId} AND trashed_at IS NULL
              ${rootVersion === undefined ? sql`` : sql`AND version = ${rootVersion}`}
            UNION ALL
            SELECT n.id FROM sub s CROSS JOIN fs_nodes n WHERE n.parent_id = s.id AND n.workspace_id = ${workspaceId} AND n.trashed_at IS NULL
          )
          UPDATE fs_nodes SET trashed_at = ${f.timeToDb(at)}, trash_root_id = ${rootId}, version = version + 1, updated_at = ${f.timeToDb(at)}
          WHERE workspace_id = ${workspaceId} AND id IN (SELECT id FROM sub)
          RETURNING id`.execute(ex),
      ).pipe(Effect.map((r) => r.rows.map((row) => row.id))),
    restoreSubtree: (workspaceId, rootId, at, rootVersion, rootHolder) =>
      runQuery(db, async (ex) => {
        const restore = ex
          .updateTable("fs_nodes")
          .set({ trashed_at: null, trash_root_id: null, version: sql`version + 1`, updated_at: f.timeToDb(at) })
          .where("workspace_id", "=", workspaceId)
          .where("trash_root_id", "=", rootId);
        // The root first, conditional on its version when given (its row lock decides a race),
        // with its new holder when given; then the rest.
        let root = restore.where("id", "=", rootId);
        if (rootVersion !== undefined) root = root.where("version", "=", rootVersion);
        if (rootHolder !== undefined) root = root.set({ root_holder: rootHolder });
        if (rootVersion === undefined && rootHolder === undefined) return Number((await restore.executeTakeFirst()).numUpdatedRows);
        const restoredRoot = Number((await root.executeTakeFirst()).numUpdatedRows);
        if (restoredRoot === 0 && rootVersion !== undefined) return 0;
        return restoredRoot + Number((await restore.executeTakeFirst()).numUpdatedRows);
      }),
    children: (req) =>
      runStatement(db, childrenPages[req.filter.kind === "granted" ? "granted" : "all"][req.after === null ? 0 : 1], {
        workspaceId: req.workspaceId,
        parentId: req.parentId,
        userId: req.filter.kind === "granted" ? req.filter.userId : undefined,
        name: req.after?.[0],
        id: req.after?.[1],
        limit: req.limit,
      }).pipe(Effect.map(({ rows }) => rows.map(nodes.fromRow))),
    trashRoots: (req) => {
      // Every node under the caller's grants, trashed ones too; on Postgres files migration 11's
      // walk, which looks each level up by the parent index (inline, the planner hashed the
      // drive's nodes per level).
      const visible =
        db.dialect === "postgres"
          ? sql`visible (id) AS (SELECT id FROM fs_visible_nodes(${req.workspaceId}, ${req.userId}, false, NULL))`
          : sql`visible (id) AS (
              SELECT node_id FROM fs_acl_entries WHERE workspace_id = ${req.workspaceId} AND user_id = ${req.userId}
              UNION
              SELECT n.id FROM visible v CROSS JOIN fs_nodes n WHERE n.parent_id = v.id AND n.workspace_id = ${req.workspaceId}
            )`;
      return runQuery(db, (ex) =>
        sql<Record<string, unknown>>`
          WITH RECURSIVE ${visible}
          SELECT n.* FROM fs_nodes n
          WHERE n.workspace_id = ${req.workspaceId} AND n.trash_root_id = n.id AND n.purged_at IS NULL AND n.id IN (SELECT id FROM visible)
          ${
            req.after === null
              ? sql``
              : sql`AND (n.trashed_at < ${f.timeToDb(req.after[0])} OR (n.trashed_at = ${f.timeToDb(req.after[0])} AND n.id < ${req.after[1]}))`
          }
          ORDER BY n.trashed_at DESC, n.id DESC
          LIMIT ${req.limit}`.execute(ex),
      ).pipe(Effect.map((r) => r.rows.map(nodes.fromRow)));
    },
    grantsOn: (workspaceId, userId, nodeIds) =>
      nodeIds.length === 0
        ? Effect.succeed([])
        : runQuery(db, (ex) =>
            ex
              .selectFrom("fs_acl_entries")
              .selectAll()
              .where("workspace_id", "=", workspaceId)
              .where("user_id", "=", userId)
              .where("node_id", "in", nodeIds)
              .execute(),
          ).pipe(Effect.map((rows) => rows.map(acl.fromRow))),
    putGrant: (entry) =>
      Effect.asVoid(
        runStatement(db, upsertGrant, acl.toRow(entry)),
      ),
    removeGrant: (workspaceId, nodeId, userId) =>
      runQuery(db, (ex) =>
        ex.deleteFrom("fs_acl_entries").where("workspace_id", "=", workspaceId).where("node_id", "=", nodeId).where("user_id", "=", userId).executeTakeFirst(),
      ).pipe(Effect.map((r) => Number(r.numDeletedRows) === 1)),
    grantsPage: (workspaceId, nodeId, afterUserId, limit) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("fs_acl_entries").selectAll().where("workspace_id", "=", workspaceId).where("node_id", "=", nodeId);
        if (afterUserId !== null) q = q.where("user_id", ">", afterUserId);
        return q.orderBy("user_id").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(acl.fromRow))),
    rootNodesHeldBy: (workspaceId, rootId, userId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("fs_nodes")
          .selectAll()
          .where("workspace_id", "=", workspaceId)
          .where("parent_id", "=", rootId)
          .where("root_holder", "=", userId)
          .where("trashed_at", "is", null)
          .orderBy("id")
          .execute(),
      ).pipe(Effect.map((rows) => rows.map(nodes.fromRow))),
    grantsOfNode: (workspaceId, nodeId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("fs_acl_entries").selectAll().where("workspace_id", "=", workspaceId).where("node_id", "=", nodeId).orderBy("user_id").execute(),
      ).pipe(Effect.map((rows) => rows.map(acl.fromRow))),
  };
};
