/**
 * File storage reads under load, each against its bare SQL in the same run:
 * - `files-children`: GET /v1/nodes/:id/children, page 1 (50) of a folder with 2,000 children
 *   (token, node's workspace, membership, node, ancestors, grants, then the keyset page on
 *   (name, id)); the raw baseline is the keyset page query alone.
 * - `files-changes`: GET /v1/changes?workspace_id=, page 1 (50) of 2,000 changes, filtered by
 *   the caller's access (a batch of changes, then its nodes' ancestor walk to the caller's
 *   grants); the raw baseline is those two queries.
 * The folder, its children and their change records are bulk-inserted once per server as the
 * SQL adapters write them (through the core each would also queue a DriveChanged event, and the
 * in-process worker would still be relaying that backlog while the load runs).
 */
import { sql } from "kysely";
import { randomUUID } from "node:crypto";
import { Change } from "../../core/files/model/Change.js";
import { NodeId, WorkspaceId } from "../../core/files/model/Ids.js";
import { Node, newNode } from "../../core/files/model/Node.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { rowCodec } from "../../adapters/sql/RowCodec.js";
import { measureOps } from "../RawLoop.js";
import type { RawDatabase } from "../RawDatabase.js";
import type { BenchTarget, RawBounds, Scenario } from "../Scenario.js";
import { callJson, userToken } from "./projectsFixtures.js";

/** Children of the bench folder, and change records in the feed. */
const childCount = 2_000;

/** The page size of both lists when the client sends no limit (Limits.listDefault). */
const pageSize = 50;

/** The bench folder's name; the raw baselines find it by this name. */
const folderName = "bench-children";

interface SeededDrive {
  readonly token: string;
  readonly userId: string;
  readonly workspaceId: string;
  readonly folderId: string;
}

// Both scenarios read the same drive: seed it once per server.
const seeded = new WeakMap<object, Promise<SeededDrive>>();

const seedDrive = (target: BenchTarget): Promise<SeededDrive> => {
  let drive = seeded.get(target.server);
  if (drive === undefined) {
    drive = (async () => {
      const { userId, token } = await userToken(target);
      const workspace = await callJson(target, token, "POST", "/v1/workspaces", { name: "bench files" });
      const workspaceId = String(workspace.id);
      const root = String((await callJson(target, token, "GET", `/v1/workspaces/${workspaceId}/drive`)).root_node_id);
      // Made at the root through the API: the caller owns it, so every child is visible to them.
      const folder = await callJson(target, token, "POST", "/v1/nodes", { parent_id: root, name: folderName, kind: "folder" });
      const folderId = String(folder.id);
      const database = target.server.core.database;
      const f = featuresFor(database);
      const nodes = rowCodec(Node, f);
      const changes = rowCodec(Change, f);
      const at = new Date();
      const ws = WorkspaceId.make(workspaceId);
      const children = Array.from({ length: childCount }, (_, i) =>
        newNode({ id: NodeId.make(randomUUID()), workspaceId: ws, parentId: NodeId.make(folderId), name: `child-${String(i).padStart(5, "0")}`, kind: "folder", createdBy: userId, createdAt: at }),
      );
      const first = Number((await database.db.selectFrom("fs_drives").select("change_seq").where("workspace_id", "=", workspaceId).executeTakeFirstOrThrow()).change_seq);
      // 15 parameters a row: 500 rows stay under both drivers' parameter limits.
      for (let from = 0; from < children.length; from += 500) {
        const batch = children.slice(from, from + 500);
        await database.db.insertInto("fs_nodes").values(batch.map((n) => nodes.toRow(n))).execute();
        await database.db
          .insertInto("fs_changes")
          .values(batch.map((n, i) => changes.toRow({ workspaceId: ws, seq: first + from + i + 1, nodeId: n.id, type: "node.created", versionId: null, actorId: userId, createdAt: at })))
          .execute();
      }
      await database.db.updateTable("fs_drives").set({ change_seq: first + childCount }).where("workspace_id", "=", workspaceId).execute();
      // Fresh statistics, as the activity scenario takes them: without them Postgres plans the
      // change batch's join for a handful of rows (a nested loop filtering 4 million pairs, 0.3 s).
      for (const table of ["fs_nodes", "fs_changes"]) await sql`ANALYZE ${sql.table(table)}`.execute(database.db);
      return { token, userId, workspaceId, folderId };
    })();
    seeded.set(target.server, drive);
  }
  return drive;
};

/** `?` on SQLite, `$n` on Postgres. */
const p = (dialect: RawDatabase["dialect"], n: number): string => (dialect === "sqlite" ? "?" : `$${n}`);

/** Runs `statement` with the parameters `params(folder)` on the raw driver within `bounds`. */
const rawQuery = async (
  db: RawDatabase,
  bounds: RawBounds,
  statement: string,
  params: (folder: { readonly workspaceId: string; readonly folderId: string; readonly userId: string }) => ReadonlyArray<unknown>,
) => {
  const lookup = `select "workspace_id", "id", "created_by" from "fs_nodes" where "name" = ${p(db.dialect, 1)} limit 1`;
  if (db.dialect === "sqlite") {
    const row = db.sqlite.prepare(lookup).get(folderName) as { workspace_id: string; id: string; created_by: string } | undefined;
    if (row === undefined) throw new Error("files bench: the seeded folder is missing");
    const values = params({ workspaceId: row.workspace_id, folderId: row.id, userId: row.created_by });
    const query = db.sqlite.prepare(statement);
    return measureOps(() => {
      if (query.all(...values).length === 0) throw new Error("files bench: the raw query found nothing");
    }, bounds);
  }
  const found = await db.pool.query<{ workspace_id: string; id: string; created_by: string }>(lookup, [folderName]);
  const row = found.rows[0];
  if (row === undefined) throw new Error("files bench: the seeded folder is missing");
  const values = params({ workspaceId: row.workspace_id, folderId: row.id, userId: row.created_by });
  return measureOps(async () => {
    const result = await db.pool.query(statement, [...values]);
    if (result.rows.length === 0) throw new Error("files bench: the raw query found nothing");
  }, bounds);
};

/** GET /v1/nodes/:id/children, page 1 of 2,000. */
export const filesChildren: Scenario = {
  name: "files-children",
  description: `GET /v1/nodes/:id/children, page 1 (${pageSize}) of a folder with ${childCount.toLocaleString("en-US")} children (access check, keyset on name, id)`,
  setup: async (target) => {
    const { token, folderId } = await seedDrive(target);
    return { requests: [{ method: "GET", path: `/v1/nodes/${folderId}/children`, headers: { authorization: `Bearer ${token}` } }] };
  },
  rawBaseline: async (db, bounds) => {
    const d = db.dialect;
    const statement = `select * from "fs_nodes" where "workspace_id" = ${p(d, 1)} and "parent_id" = ${p(d, 2)} and "trashed_at" is null order by "name", "id" limit ${p(d, 3)}`;
    const measured = await rawQuery(db, bounds, statement, ({ workspaceId, folderId }) => [workspaceId, folderId, pageSize + 1]);
    return { ...measured, label: "select the keyset page of active children (name, id) limit 51" };
  },
};

/** GET /v1/changes, page 1 of 2,000 changes the caller may see. */
export const filesChanges: Scenario = {
  name: "files-changes",
  description: `GET /v1/changes?workspace_id=, page 1 (${pageSize}) of ${childCount.toLocaleString("en-US")} changes, filtered by the caller's grants (ancestor walk per batch)`,
  setup: async (target) => {
    const { token, workspaceId } = await seedDrive(target);
    return { requests: [{ method: "GET", path: `/v1/changes?workspace_id=${workspaceId}`, headers: { authorization: `Bearer ${token}` } }] };
  },
  rawBaseline: async (db, bounds) => {
    const d = db.dialect;
    // SqlChangesRepository.list's first batch: the next 100 changes with their nodes, then the
    // batch's nodes walking up to a grant of the caller (all 2,000 are visible, so one batch fills the page).
    const batch = `
      SELECT n.*, c.seq AS change_seq, c.type AS change_type, c.version_id AS change_version_id,
             c.actor_id AS change_actor_id, c.created_at AS change_created_at
      FROM fs_changes c JOIN fs_nodes n ON n.workspace_id = c.workspace_id AND n.id = c.node_id
      WHERE c.workspace_id = ${p(d, 1)} AND c.seq > ${p(d, 2)}
      ORDER BY c.seq
      LIMIT ${p(d, 3)}`;
    const walk = (count: number) => `
      WITH RECURSIVE up (start, id, parent_id, depth) AS (
        SELECT n.id, n.id, n.parent_id, 0 FROM fs_nodes n WHERE n.workspace_id = ${p(d, 1)} AND n.id IN (${Array.from({ length: count }, (_, i) => p(d, i + 5)).join(", ")})
        UNION ALL
        SELECT u.start, q.id, q.parent_id, u.depth + 1 FROM up u CROSS JOIN fs_nodes q
        WHERE q.id = u.parent_id AND q.workspace_id = ${p(d, 2)} AND u.depth < 256
      )
      SELECT DISTINCT u.start AS start FROM up u
      WHERE EXISTS (SELECT 1 FROM fs_acl_entries a WHERE a.workspace_id = ${p(d, 3)} AND a.node_id = u.id AND a.user_id = ${p(d, 4)})`;
    const lookup = `select "workspace_id", "created_by" from "fs_nodes" where "name" = ${p(d, 1)} limit 1`;
    if (d === "sqlite") {
      const row = db.sqlite.prepare(lookup).get(folderName) as { workspace_id: string; created_by: string } | undefined;
      if (row === undefined) throw new Error("files bench: the seeded folder is missing");
      // `?` binds in the order of appearance: the workspace, the ids, then the rest.
      const first = db.sqlite.prepare(batch);
      const measured = await measureOps(() => {
        const rows = first.all(row.workspace_id, 0, 100) as Array<{ id: string }>;
        const ids = [...new Set(rows.map((r) => r.id))];
        if (db.sqlite.prepare(walk(ids.length)).all(row.workspace_id, ...ids, row.workspace_id, row.workspace_id, row.created_by).length === 0) throw new Error("files bench: nothing visible");
      }, bounds);
      return { ...measured, label: "the feed's first batch of 100 changes, then its nodes' ancestor walk to the caller's grants" };
    }
    const found = (await db.pool.query<{ workspace_id: string; created_by: string }>(lookup, [folderName])).rows[0];
    if (found === undefined) throw new Error("files bench: the seeded folder is missing");
    const measured = await measureOps(async () => {
      const rows = (await db.pool.query<{ id: string }>(batch, [found.workspace_id, 0, 100])).rows;
      const ids = [...new Set(rows.map((r) => r.id))];
      if ((await db.pool.query(walk(ids.length), [found.workspace_id, found.workspace_id, found.workspace_id, found.created_by, ...ids])).rows.length === 0) {
        throw new Error("files bench: nothing visible");
      }
    }, bounds);
    return { ...measured, label: "the feed's first batch of 100 changes, then its nodes' ancestor walk to the caller's grants" };
  },
};
