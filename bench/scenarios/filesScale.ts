/**
 * File storage at scale, each against its bare SQL or its bare I/O in the same run:
 * - `files-children-100k-page-1` / `files-children-100k-page-1000`: GET /v1/nodes/:id/children,
 *   page 1 and page 1,000 (cursor after row 49,950) of a folder with 100,000 children, seeded by
 *   the database itself (generate_series on Postgres, a recursive CTE on SQLite, 10,000 rows per
 *   statement). With keyset pagination on (name, id) the two should be close. Raw baseline: the
 *   keyset page query with the same key.
 * - `files-upload-create`: POST /v1/uploads (Idempotency-Key, one fresh key and name per request,
 *   1 KiB each, into one folder of one drive: every creation locks the same drive row to reserve
 *   quota — the rate of parallel creations one workspace sustains). Raw baseline: every statement
 *   a creation runs through the stack, in the same transactions: the caller's epoch, the
 *   idempotency reservation, the folder's workspace, membership and grant walk, then one
 *   transaction (lock the drive row, the folder, the name check, the reservation, the session,
 *   its part and its expiry job), then the idempotency answer. Until the eighth session it was
 *   the reservation transaction alone (3 of those 15 statements).
 * - `files-upload-256mib`: in setup, one 256 MiB upload through grants (32 parts of 8 MiB PUT to
 *   the local store's grant URLs, then complete, which assembles and verifies the object) is
 *   timed against writing the same bytes to a file directly; the figures and their ratio are the
 *   row's metrics. The HTTP load is then GET of the drive (a cheap read, so the row still runs).
 */
import { createHash, randomUUID } from "node:crypto";
import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { sql } from "kysely";
import { encodeCursor } from "../../core/kernel/Cursor.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { measureOps } from "../RawLoop.js";
import { inOrder, kernelSql, numbered, rawRunner, reserveKeyParams } from "../RawStatements.js";
import type { RawDatabase } from "../RawDatabase.js";
import type { BenchTarget, RawBounds, Scenario } from "../Scenario.js";
import { callJson, userToken } from "./projectsFixtures.js";

const bigFolderName = "bench-children-100k";
const bigChildCount = 100_000;
const pageSize = 50;
const deepOffset = 49_950;

const p = (dialect: RawDatabase["dialect"], n: number): string => (dialect === "sqlite" ? "?" : `$${n}`);

interface BigFolder {
  readonly token: string;
  readonly workspaceId: string;
  readonly folderId: string;
  readonly deepCursor: string;
  readonly deepKey: readonly [string, string];
}

const seededBig = new WeakMap<object, Promise<BigFolder>>();

/** A folder of 100,000 children made by the database, once per server. */
const seedBigFolder = (target: BenchTarget): Promise<BigFolder> => {
  let folder = seededBig.get(target.server);
  if (folder === undefined) {
    folder = (async () => {
      const { userId, token } = await userToken(target);
      const workspace = await callJson(target, token, "POST", "/v1/workspaces", { name: "bench files 100k" });
      const workspaceId = String(workspace.id);
      const root = String((await callJson(target, token, "GET", `/v1/workspaces/${workspaceId}/drive`)).root_node_id);
      const made = await callJson(target, token, "POST", "/v1/nodes", { parent_id: root, name: bigFolderName, kind: "folder" });
      const folderId = String(made.id);
      const database = target.server.core.database;
      const at = featuresFor(database).timeToDb(new Date());
      const started = performance.now();
      for (let from = 1; from <= bigChildCount; from += 10_000) {
        const to = Math.min(bigChildCount, from + 9_999);
        if (database.dialect === "sqlite") {
          await sql`
            WITH RECURSIVE seq(i) AS (SELECT CAST(${from} AS INTEGER) UNION ALL SELECT i + 1 FROM seq WHERE i < CAST(${to} AS INTEGER))
            INSERT INTO fs_nodes (id, workspace_id, parent_id, name, kind, version, legal_hold, created_by, created_at, updated_at)
            SELECT printf('%s-%08d', ${folderId}, i), ${workspaceId}, ${folderId}, printf('item-%06d', i), 'folder', 1, 0, ${userId}, ${at}, ${at} FROM seq`.execute(database.db);
        } else {
          await sql`
            INSERT INTO fs_nodes (id, workspace_id, parent_id, name, kind, version, legal_hold, created_by, created_at, updated_at)
            SELECT ${folderId} || '-' || lpad(i::text, 8, '0'), ${workspaceId}, ${folderId}, 'item-' || lpad(i::text, 6, '0'), 'folder', 1, false, ${userId}, ${at}, ${at}
            FROM generate_series(${from}::int, ${to}::int) AS i`.execute(database.db);
        }
      }
      process.stdout.write(`files-children-100k: seeded ${bigChildCount.toLocaleString("en-US")} children in ${Math.round(performance.now() - started)} ms\n`);
      // Fresh statistics for the planner, as the other seeded scenarios take them.
      await sql`ANALYZE fs_nodes`.execute(database.db);
      const before = await database.db
        .selectFrom("fs_nodes")
        .select(["name", "id"])
        .where("parent_id", "=", folderId)
        .where("trashed_at", "is", null)
        .orderBy("name")
        .orderBy("id")
        .offset(deepOffset - 1)
        .limit(1)
        .executeTakeFirstOrThrow();
      const deepKey = [String(before.name), String(before.id)] as const;
      return { token, workspaceId, folderId, deepCursor: encodeCursor([deepKey[0], deepKey[1]]), deepKey };
    })();
    seededBig.set(target.server, folder);
  }
  return folder;
};

/** The keyset page of the big folder after `key` (null: page 1) on the raw driver. */
const rawChildrenPage = async (db: RawDatabase, bounds: RawBounds, deep: boolean) => {
  const d = db.dialect;
  const lookup = `select "id" from "fs_nodes" where "name" = ${p(d, 1)} limit 1`;
  const folderId =
    d === "sqlite"
      ? (db.sqlite.prepare(lookup).get(bigFolderName) as { id: string } | undefined)?.id
      : (await db.pool.query<{ id: string }>(lookup, [bigFolderName])).rows[0]?.id;
  if (folderId === undefined) throw new Error("files bench: the 100k folder is missing");
  const keyQuery = `select "name", "id" from "fs_nodes" where "parent_id" = ${p(d, 1)} and "trashed_at" is null order by "name", "id" limit 1 offset ${deepOffset - 1}`;
  const key =
    d === "sqlite"
      ? (db.sqlite.prepare(keyQuery).get(folderId) as { name: string; id: string })
      : (await db.pool.query<{ name: string; id: string }>(keyQuery, [folderId])).rows[0]!;
  const statement = deep
    ? `select * from "fs_nodes" where "parent_id" = ${p(d, 1)} and "trashed_at" is null and "name" >= ${p(d, 2)} and ("name" > ${p(d, 3)} or "id" > ${p(d, 4)}) order by "name", "id" limit ${p(d, 5)}`
    : `select * from "fs_nodes" where "parent_id" = ${p(d, 1)} and "trashed_at" is null order by "name", "id" limit ${p(d, 2)}`;
  const values = deep ? [folderId, key.name, key.name, key.id, pageSize + 1] : [folderId, pageSize + 1];
  if (d === "sqlite") {
    const query = db.sqlite.prepare(statement);
    return measureOps(() => {
      if (query.all(...values).length === 0) throw new Error("files bench: empty page");
    }, bounds);
  }
  return measureOps(async () => {
    if ((await db.pool.query(statement, values)).rows.length === 0) throw new Error("files bench: empty page");
  }, bounds);
};

/** GET /v1/nodes/:id/children, page 1 of 100,000. */
export const filesChildren100kFirst: Scenario = {
  name: "files-children-100k-page-1",
  description: `GET /v1/nodes/:id/children, page 1 (${pageSize}) of a folder with ${bigChildCount.toLocaleString("en-US")} children`,
  setup: async (target) => {
    const { token, folderId } = await seedBigFolder(target);
    return { requests: [{ method: "GET", path: `/v1/nodes/${folderId}/children`, headers: { authorization: `Bearer ${token}` } }] };
  },
  rawBaseline: async (db, bounds) => ({ ...(await rawChildrenPage(db, bounds, false)), label: "keyset page 1 of the 100k folder (name, id) limit 51" }),
};

/** GET /v1/nodes/:id/children, page 1,000 of 100,000. */
export const filesChildren100kDeep: Scenario = {
  name: "files-children-100k-page-1000",
  description: `GET /v1/nodes/:id/children?cursor=..., page 1,000 (after row ${deepOffset.toLocaleString("en-US")}) of the same folder`,
  setup: async (target) => {
    const { token, folderId, deepCursor } = await seedBigFolder(target);
    return { requests: [{ method: "GET", path: `/v1/nodes/${folderId}/children?cursor=${encodeURIComponent(deepCursor)}`, headers: { authorization: `Bearer ${token}` } }] };
  },
  rawBaseline: async (db, bounds) => ({ ...(await rawChildrenPage(db, bounds, true)), label: "keyset page after row 49,950 of the 100k folder, limit 51" }),
};

const searchedBig = new WeakMap<object, Promise<BigFolder>>();

/**
 * The big folder with a search document per child, as the files indexer writes them (the name's
 * words: "item 000042"), inserted by the database itself once per server.
 */
const seedBigFolderSearch = (target: BenchTarget): Promise<BigFolder> => {
  let searched = searchedBig.get(target.server);
  if (searched === undefined) {
    searched = (async () => {
      const folder = await seedBigFolder(target);
      const database = target.server.core.database;
      const started = performance.now();
      await sql`
        INSERT INTO fs_search_documents (workspace_id, node_id, name, content_type, version_id, body, seq)
        SELECT workspace_id, id, replace(name, '-', ' '), NULL, NULL, '', 1 FROM fs_nodes WHERE workspace_id = ${folder.workspaceId} AND parent_id = ${folder.folderId}
        ON CONFLICT (workspace_id, node_id) DO NOTHING`.execute(database.db);
      await sql`ANALYZE fs_search_documents`.execute(database.db);
      process.stdout.write(`files-search-100k: indexed ${bigChildCount.toLocaleString("en-US")} names in ${Math.round(performance.now() - started)} ms\n`);
      return folder;
    })();
    searchedBig.set(target.server, searched);
  }
  return searched;
};

/** GET /v1/workspaces/:id/drive/search for a query `q` over the 100k folder's names. */
const searchScenario = (name: string, q: string, matches: string): Scenario => ({
  name,
  description: `GET /v1/workspaces/:id/drive/search?q=${q} over ${bigChildCount.toLocaleString("en-US")} indexed names (${matches}); every match is access-checked before the page's limit`,
  setup: async (target) => {
    const { token, workspaceId } = await seedBigFolderSearch(target);
    const path = `/v1/workspaces/${workspaceId}/drive/search?q=${encodeURIComponent(q)}`;
    const first = await callJson(target, token, "GET", path);
    if (!Array.isArray(first.data) || first.data.length === 0) throw new Error(`${name}: the search found nothing`);
    return { requests: [{ method: "GET", path, headers: { authorization: `Bearer ${token}` } }] };
  },
});

/** A narrow search (100 of 100,000 names match). */
export const filesSearch100kNarrow = searchScenario("files-search-100k-narrow", "item 0420", "100 match");

/** A broad search (every one of the 100,000 names matches). */
export const filesSearch100kBroad = searchScenario("files-search-100k-broad", "item", "all match");

/** The nodes of the small folder a reader of `files-search-100k-reader` sees. */
const readerFolderSize = 100;

/**
 * The broad search by a member who sees one folder of 100 in the same drive: their search looks
 * among the nodes they see (the walk down their grants, docs/known-gaps.md), so its cost is that
 * walk on a drive of a few large folders plus the hits, not the 100,000 matches.
 */
export const filesSearch100kReader: Scenario = {
  name: "files-search-100k-reader",
  description: `GET /v1/workspaces/:id/drive/search?q=item by a member granted one folder of ${readerFolderSize} in the drive of ${bigChildCount.toLocaleString("en-US")} indexed names (every name matches): the walk of what they see, then its matches`,
  setup: async (target) => {
    const { token, workspaceId } = await seedBigFolderSearch(target);
    const root = String((await callJson(target, token, "GET", `/v1/workspaces/${workspaceId}/drive`)).root_node_id);
    const folder = await callJson(target, token, "POST", "/v1/nodes", { parent_id: root, name: "bench-reader-folder", kind: "folder" });
    for (let i = 0; i < readerFolderSize; i++) {
      const child = await callJson(target, token, "POST", "/v1/nodes", { parent_id: folder.id, name: `item reader ${i}`, kind: "folder" });
      const database = target.server.core.database;
      await sql`INSERT INTO fs_search_documents (workspace_id, node_id, name, content_type, version_id, body, seq)
        VALUES (${workspaceId}, ${String(child.id)}, ${`item reader ${i}`}, NULL, NULL, '', 1) ON CONFLICT (workspace_id, node_id) DO NOTHING`.execute(database.db);
    }
    const reader = await userToken(target);
    // The reader joins as users do: the owner invites, the reader accepts.
    const invitation = await callJson(target, token, "POST", `/v1/workspaces/${workspaceId}/invitations`, { user_id: reader.userId, role: "member" });
    await callJson(target, reader.token, "POST", `/v1/invitations/${String(invitation.id)}/accept`);
    await callJson(target, token, "POST", `/v1/nodes/${String(folder.id)}/permissions`, { user_id: reader.userId, role: "viewer" });
    const path = `/v1/workspaces/${workspaceId}/drive/search?q=item`;
    const first = await callJson(target, reader.token, "GET", path);
    if (!Array.isArray(first.data) || first.data.length === 0) throw new Error("files-search-100k-reader: the reader's search found nothing");
    return { requests: [{ method: "GET", path, headers: { authorization: `Bearer ${reader.token}` } }] };
  },
};

const uploadFolderName = "bench-uploads";
const uploadSize = 1024;
const uploadSha = createHash("sha256").update(Buffer.alloc(uploadSize)).digest("hex");

/** POST /v1/uploads, a fresh key and name per request, all into one drive. */
export const filesUploadCreate: Scenario = {
  name: "files-upload-create",
  description: "POST /v1/uploads (1 KiB, fresh Idempotency-Key and name each), parallel creations reserving quota on one drive",
  setup: async (target, { connections }) => {
    const { token } = await userToken(target);
    const workspace = await callJson(target, token, "POST", "/v1/workspaces", { name: "bench uploads" });
    const root = String((await callJson(target, token, "GET", `/v1/workspaces/${String(workspace.id)}/drive`)).root_node_id);
    const folder = await callJson(target, token, "POST", "/v1/nodes", { parent_id: root, name: uploadFolderName, kind: "folder" });
    const requests = Array.from({ length: connections * 2_000 }, (_, i) => ({
      method: "POST" as const,
      path: "/v1/uploads",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ parent_id: String(folder.id), name: `upload-${i}.bin`, size_bytes: uploadSize, sha256: uploadSha, content_type: "application/octet-stream" }),
    }));
    return { requests, consumable: true };
  },
  rawBaseline: async (db, bounds) => {
    const d = db.dialect;
    const lookup = `select "workspace_id", "id", "created_by" from "fs_nodes" where "name" = ${p(d, 1)} limit 1`;
    const row =
      d === "sqlite"
        ? (db.sqlite.prepare(lookup).get(uploadFolderName) as { workspace_id: string; id: string; created_by: string } | undefined)
        : (await db.pool.query<{ workspace_id: string; id: string; created_by: string }>(lookup, [uploadFolderName])).rows[0];
    if (row === undefined) throw new Error("files bench: the upload folder is missing");
    const kernel = kernelSql(d);
    const q = (text: string) => numbered(d, text);
    const toDb = (at: Date): unknown => (d === "sqlite" ? at.toISOString() : at);
    const { workspace_id: workspaceId, id: folderId, created_by: userId } = row;
    const runner = rawRunner(db);
    const measured = await measureOps((n) => {
      const at = new Date();
      const time = toDb(at);
      const key = randomUUID();
      const sessionId = randomUUID();
      return inOrder([
        () =>
          runner.autocommit([
            [kernel.epoch, [userId]],
            [kernel.reserveKey, reserveKeyParams(`user:${userId}`, key, at, toDb)],
            [q(`select "workspace_id" from "fs_nodes" where "id" = ?`), [folderId]],
            [q(`select "role" from "pm_workspace_members" where "workspace_id" = ? and "user_id" = ?`), [workspaceId, userId]],
            [q(grantWalkSql), [workspaceId, folderId, workspaceId, 64, workspaceId, userId, workspaceId]],
          ]),
        () =>
          runner.inTransaction([
            [q(`select * from "fs_drives" where "workspace_id" = ?${d === "postgres" ? " for update" : ""}`), [workspaceId]],
            [q(`select * from "fs_nodes" where "workspace_id" = ? and "id" = ?`), [workspaceId, folderId]],
            [q(`select * from "fs_nodes" where "workspace_id" = ? and "parent_id" = ? and "name" = ? and "trashed_at" is null`), [workspaceId, folderId, `raw-${n}.bin`]],
            [q(`update "fs_drives" set "reserved_bytes" = reserved_bytes + ?, "used_bytes" = used_bytes + ?, "updated_at" = ? where "workspace_id" = ?`), [uploadSize, 0, time, workspaceId]],
            [
              q(
                `insert into "fs_upload_sessions" ("id", "workspace_id", "parent_id", "node_id", "name", "size_bytes", "sha256", "content_type", "part_size_bytes", "part_count", "status", "reserved_bytes", "version_id", "store_upload_id", "created_by", "expires_at", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`,
              ),
              [sessionId, workspaceId, folderId, null, `raw-${n}-${key}.bin`, uploadSize, uploadSha, "application/octet-stream", 8 * 1024 * 1024, 1, "open", uploadSize, null, null, userId, toDb(new Date(at.getTime() + 86_400_000)), time, time],
            ],
            [q(`insert into "fs_upload_parts" ("session_id", "workspace_id", "part_number", "size_bytes", "sha256", "object_key", "etag") values (?, ?, ?, ?, ?, ?, ?)`), [sessionId, workspaceId, 1, uploadSize, uploadSha, `uploads/${sessionId}/1`, null]],
            [kernel.job, [randomUUID(), "files.upload_expiry", sessionId, JSON.stringify({ sessionId }), "pending", 0, 16, toDb(new Date(at.getTime() + 86_400_000)), time, time]],
          ]),
        () => runner.autocommit([[kernel.completeKey, ["completed", JSON.stringify({ status: 201, headers: {}, body: { id: sessionId, status: "open", parts: [] } }), `user:${userId}`, key, "in_progress"]]]),
      ]);
    }, bounds);
    return {
      ...measured,
      label: `every statement of a creation: epoch, idempotency reservation, folder workspace, membership, grant walk; ${d === "sqlite" ? "BEGIN IMMEDIATE" : "BEGIN"}; drive${d === "postgres" ? " for update" : ""}, folder, name check, reservation, session, part, expiry job; COMMIT; idempotency answer`,
    };
  },
};

/** The grant walk of a node to the caller's grants (adapters/sql/files, as compiled). */
const grantWalkSql =
  ` WITH RECURSIVE chain (id, parent_id, depth) AS ( SELECT id, parent_id, 0 FROM fs_nodes WHERE workspace_id = ? AND id = ? UNION ALL SELECT n.id, n.parent_id, c.depth + 1 FROM chain c CROSS JOIN fs_nodes n WHERE n.id = c.parent_id AND n.workspace_id = ? AND c.depth < ? ) ` +
  `SELECT n.*, g."workspace_id" AS "grant__workspace_id", g."node_id" AS "grant__node_id", g."user_id" AS "grant__user_id", g."role" AS "grant__role", g."granted_by" AS "grant__granted_by", g."created_at" AS "grant__created_at" ` +
  `FROM chain c CROSS JOIN fs_nodes n LEFT JOIN fs_acl_entries g ON g.workspace_id = ? AND g.node_id = n.id AND g.user_id = ? WHERE n.id = c.id AND n.workspace_id = ? ORDER BY c.depth`;

const bigUploadBytes = 256 * 1024 * 1024;

/** One 256 MiB upload through grants against the same bytes written to a file directly (setup metrics). */
export const filesUpload256: Scenario = {
  name: "files-upload-256mib",
  description: "one 256 MiB upload through part grants + complete vs writing the bytes to disk (metrics); load: GET the drive",
  setup: async (target) => {
    const { token } = await userToken(target);
    const workspace = await callJson(target, token, "POST", "/v1/workspaces", { name: "bench upload 256" });
    const workspaceId = String(workspace.id);
    const root = String((await callJson(target, token, "GET", `/v1/workspaces/${workspaceId}/drive`)).root_node_id);
    const bytes = Buffer.alloc(bigUploadBytes);
    for (let i = 0; i < bytes.length; i += 4096) bytes.writeUInt32LE(i, i);
    const partSize = 8 * 1024 * 1024;
    const parts: string[] = [];
    for (let i = 0; i < bytes.length; i += partSize) parts.push(createHash("sha256").update(bytes.subarray(i, i + partSize)).digest("hex"));
    const sha256 = createHash("sha256").update(bytes).digest("hex");
    const session = await fetch(`${target.url}/v1/uploads`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json", "idempotency-key": randomUUID() },
      body: JSON.stringify({ parent_id: root, name: "big.bin", size_bytes: bytes.length, sha256, content_type: "application/octet-stream", part_sha256: parts }),
    }).then((r) => r.json() as Promise<{ id: string; parts: Array<{ part_number: number; url: string; headers: Record<string, string> }> }>);
    const putStart = performance.now();
    await Promise.all(
      session.parts.map(async (part) => {
        const url = part.url.startsWith("http") ? part.url : `${target.url}${part.url}`;
        const from = (part.part_number - 1) * partSize;
        const answer = await fetch(url, { method: "PUT", headers: part.headers, body: bytes.subarray(from, from + partSize) });
        if (answer.status >= 300) throw new Error(`files bench: part ${part.part_number} answered ${answer.status}`);
      }),
    );
    const putMs = performance.now() - putStart;
    const completeStart = performance.now();
    const completed = await fetch(`${target.url}/v1/uploads/${session.id}/complete`, {
      method: "POST",
      headers: { authorization: `Bearer ${token}`, "content-type": "application/json" },
      body: JSON.stringify({ sha256 }),
    });
    if (completed.status !== 202) throw new Error(`files bench: complete answered ${completed.status}`);
    const completeMs = performance.now() - completeStart;
    const dir = await mkdtemp(join(tmpdir(), "bench-files-"));
    const diskStart = performance.now();
    await writeFile(join(dir, "big.bin"), bytes);
    const diskMs = performance.now() - diskStart;
    await rm(dir, { recursive: true, force: true });
    const metrics = {
      upload_put_ms: Math.round(putMs),
      upload_complete_ms: Math.round(completeMs),
      disk_write_ms: Math.round(diskMs),
      put_vs_disk: Math.round((putMs / diskMs) * 100) / 100,
      upload_vs_disk: Math.round(((putMs + completeMs) / diskMs) * 100) / 100,
    };
    process.stdout.write(`files-upload-256mib: ${JSON.stringify(metrics)}\n`);
    return { requests: [{ method: "GET", path: `/v1/workspaces/${workspaceId}/drive`, headers: { authorization: `Bearer ${token}` } }], metrics };
  },
};
