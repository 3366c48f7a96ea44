/**
 * Spec (States and transitions; Resources; Versioning): "A file has many immutable versions",
 * "File versions are immutable", a quarantined version is published, blocked or left for manual
 * review, an upload session settles once (completed, or removed with its quota released), "Nodes
 * have an optimistic version", share tokens are "expiring, revocable". The database holds these
 * whoever writes (files migration 15), not only the use cases' conditional updates — SQLite and
 * Postgres. The version cases are derived from core/files/VersionStatus.ts's table, so the
 * migration and the table cannot drift apart unnoticed.
 */
import t from "tap";
import { sql } from "kysely";
import type { Kysely } from "kysely";
import { createFolder } from "../../core/files/CreateFolder.js";
import { createShareLink } from "../../core/files/ShareLinks.js";
import { versionTransitions } from "../../core/files/VersionStatus.js";
import type { VersionStatus } from "../../core/files/model/FileVersion.js";
import { bytesOf, filesRuntime, forEachFilesDialect, uploadFile, uploadParts, workspaceWithDrive } from "./support.js";

const statuses = Object.keys(versionTransitions) as VersionStatus[];

/** A shortest walk of allowed edges from `quarantined` to `to`. */
const pathTo = (to: VersionStatus): VersionStatus[] => {
  const seen = new Map<VersionStatus, VersionStatus[]>([["quarantined", []]]);
  const queue: VersionStatus[] = ["quarantined"];
  while (queue.length > 0) {
    const from = queue.shift()!;
    for (const next of Object.values(versionTransitions[from]) as VersionStatus[]) {
      if (!seen.has(next)) {
        seen.set(next, [...seen.get(from)!, next]);
        queue.push(next);
      }
    }
  }
  const path = seen.get(to);
  if (path === undefined) throw new Error(`${to} is not reachable`);
  return path;
};

const setStatus = (db: Kysely<any>, id: string, status: string) =>
  sql`UPDATE fs_file_versions SET status = ${status}, published_at = COALESCE(published_at, created_at) WHERE id = ${id}`.execute(db);

t.test("a version's status moves only along the version table, also in the database; a stored version never changes", (t) =>
  forEachFilesDialect(t, "version states", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    let n = 0;
    for (const from of statuses) {
      for (const to of statuses) {
        if (from === to) continue;
        const version = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: `f${n++}.bin`, bytes: bytesOf(`v${n}`) });
        for (const step of pathTo(from)) await setStatus(db.db, version.id, step);
        const allowed = (Object.values(versionTransitions[from]) as VersionStatus[]).includes(to);
        if (allowed) await t.resolves(setStatus(db.db, version.id, to), `${from} → ${to} is an edge of the table`);
        else await t.rejects(setStatus(db.db, version.id, to), `${from} → ${to} is refused`);
      }
    }

    const version = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "fixed.bin", bytes: bytesOf("fixed") });
    const other = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "other.bin", bytes: bytesOf("other") });
    for (const [column, value] of [
      ["node_id", other.nodeId],
      ["number", 7],
      ["size_bytes", 1],
      ["sha256", "0".repeat(64)],
      ["content_type", "text/html"],
      ["object_key", "files/ws1/elsewhere"],
      ["created_by", "mallory"],
      ["restored_from_id", other.id],
    ] as const) {
      await t.rejects(db.db.updateTable("fs_file_versions").set({ [column]: value }).where("id", "=", version.id).execute(), `a version's ${column} never changes`);
    }
    await db.db.updateTable("fs_file_versions").set({ detected_content_type: "text/plain" }).where("id", "=", version.id).execute();
    await t.rejects(
      db.db.updateTable("fs_file_versions").set({ detected_content_type: "image/png" }).where("id", "=", version.id).execute(),
      "a detected content type is recorded once",
    );
    await t.rejects(db.db.deleteFrom("fs_file_versions").where("id", "=", version.id).execute(), "a version of an active file is never deleted");
    const stored = await db.db.selectFrom("fs_file_versions").select(["node_id", "number", "sha256", "detected_content_type"]).where("id", "=", version.id).executeTakeFirstOrThrow();
    t.match(stored, { node_id: version.nodeId, sha256: version.sha256, detected_content_type: "text/plain" }, "the version is as stored");
  }),
);

t.test("an upload session settles once and keeps what it declared; an open session is never deleted; a part never changes but its reported ETag", (t) =>
  forEachFilesDialect(t, "upload session states", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const open = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "open.bin", bytes: bytesOf("still open") });
    for (const [column, value] of [
      ["size_bytes", 1],
      ["sha256", "0".repeat(64)],
      ["name", "other.bin"],
      ["expires_at", db.features.timeToDb(new Date(Date.now() + 365 * 86_400_000))],
      ["created_by", "mallory"],
      ["part_count", 9],
    ] as const) {
      await t.rejects(db.db.updateTable("fs_upload_sessions").set({ [column]: value }).where("id", "=", open.id).execute(), `a session's ${column} never changes`);
    }
    await t.rejects(db.db.deleteFrom("fs_upload_sessions").where("id", "=", open.id).execute(), "an open session is never deleted");

    const settled = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "settled.bin", bytes: bytesOf("aborted") });
    await db.db.updateTable("fs_upload_sessions").set({ status: "aborted", reserved_bytes: 0 }).where("id", "=", settled.id).execute();
    const size = Number((await db.db.selectFrom("fs_upload_sessions").select("size_bytes").where("id", "=", settled.id).executeTakeFirstOrThrow()).size_bytes);
    await t.rejects(
      db.db.updateTable("fs_upload_sessions").set({ status: "open", reserved_bytes: size }).where("id", "=", settled.id).execute(),
      "a settled session never opens again",
    );
    await t.rejects(db.db.updateTable("fs_upload_sessions").set({ status: "expired" }).where("id", "=", settled.id).execute(), "nor settles a second time");
    await t.resolves(db.db.updateTable("fs_upload_parts").set({ etag: "reported" }).where("session_id", "=", open.id).execute(), "a part's ETag is reported");
    await t.rejects(db.db.updateTable("fs_upload_parts").set({ size_bytes: 1 }).where("session_id", "=", open.id).execute(), "a part's size never changes");
    t.same(
      (await db.db.selectFrom("fs_upload_sessions").select(["id", "status"]).where("id", "in", [open.id, settled.id]).orderBy("status").execute()).map((r) => [r.id, r.status]),
      [
        [settled.id, "aborted"],
        [open.id, "open"],
      ],
    );
  }),
);

t.test("a node's every change advances its version by one; the root is never moved, renamed or trashed; only a trashed node is deleted", (t) =>
  forEachFilesDialect(t, "node rules", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const a = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "a" }));
    const b = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "b" }));
    await t.rejects(db.db.updateTable("fs_nodes").set({ name: "renamed" }).where("id", "=", a.id).execute(), "a rename that keeps the version is refused");
    await t.rejects(db.db.updateTable("fs_nodes").set({ name: "renamed", version: a.version + 2 }).where("id", "=", a.id).execute(), "a version that skips is refused");
    await t.resolves(db.db.updateTable("fs_nodes").set({ name: "renamed", version: a.version + 1 }).where("id", "=", a.id).execute(), "a rename that advances it by one is written");
    await t.rejects(db.db.updateTable("fs_nodes").set({ version: a.version }).where("id", "=", a.id).execute(), "a version never goes back");
    await t.rejects(db.db.updateTable("fs_nodes").set({ kind: "file", version: a.version + 2 }).where("id", "=", a.id).execute(), "a node's kind never changes");
    await t.rejects(db.db.updateTable("fs_nodes").set({ created_by: "mallory", version: a.version + 2 }).where("id", "=", a.id).execute(), "nor its author");
    await t.rejects(db.db.updateTable("fs_nodes").set({ parent_id: null, version: a.version + 2 }).where("id", "=", a.id).execute(), "no node becomes a second root");
    await t.rejects(sql`UPDATE fs_nodes SET parent_id = ${b.id}, version = version + 1 WHERE id = ${root}`.execute(db.db), "the root is never moved");
    await t.rejects(sql`UPDATE fs_nodes SET name = 'top', version = version + 1 WHERE id = ${root}`.execute(db.db), "nor renamed");
    await t.rejects(
      sql`UPDATE fs_nodes SET trashed_at = created_at, trash_root_id = id, version = version + 1 WHERE id = ${root}`.execute(db.db),
      "nor trashed",
    );
    // A folder row nothing references (written straight, without its change record or grant), so
    // only the rule stands in the way of deleting it.
    const at = db.features.timeToDb(new Date());
    await db.db
      .insertInto("fs_nodes")
      .values({ id: "bare", workspace_id: "ws1", parent_id: root, name: "bare", kind: "folder", version: 1, created_by: "ann", created_at: at, updated_at: at })
      .execute();
    await t.rejects(db.db.deleteFrom("fs_nodes").where("id", "=", "bare").execute(), "an active node is never deleted");
    await db.db.updateTable("fs_nodes").set({ trashed_at: at, trash_root_id: "bare", version: 2 }).where("id", "=", "bare").execute();
    await t.resolves(db.db.deleteFrom("fs_nodes").where("id", "=", "bare").execute(), "a trashed one is (the retention purge)");
    t.same(await db.db.selectFrom("fs_nodes").select("id").where("id", "=", "bare").execute(), []);
  }),
);

t.test("a share link's grant and expiry never change, its revocation is final, and it is deleted only with its trashed node", (t) =>
  forEachFilesDialect(t, "share link rules", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const folder = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" }));
    const other = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "other" }));
    const { link } = await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, expiresAt: null, allowDownload: false }));
    const later = db.features.timeToDb(new Date(Date.now() + 300 * 86_400_000));
    for (const [column, value] of [
      ["node_id", other.id],
      ["token_hash", "0".repeat(64)],
      ["allow_download", db.dialect === "sqlite" ? 1 : true],
      ["created_by", "mallory"],
      ["expires_at", later],
    ] as const) {
      await t.rejects(db.db.updateTable("fs_share_links").set({ [column]: value }).where("id", "=", link.id).execute(), `a link's ${column} never changes`);
    }
    await t.rejects(db.db.deleteFrom("fs_share_links").where("id", "=", link.id).execute(), "a link of an active node is never deleted");
    const revokedAt = db.features.timeToDb(new Date());
    await db.db.updateTable("fs_share_links").set({ revoked_at: revokedAt }).where("id", "=", link.id).execute();
    await t.rejects(db.db.updateTable("fs_share_links").set({ revoked_at: null }).where("id", "=", link.id).execute(), "a revocation is never undone");
    const row = await db.db.selectFrom("fs_share_links").select(["node_id", "revoked_at"]).where("id", "=", link.id).executeTakeFirstOrThrow();
    t.equal(row.node_id, folder.id);
    t.not(row.revoked_at, null, "the link stays revoked");
  }),
);

t.test("an archive extraction moves queued → running → succeeded | failed (or queued → failed) and a finished one never changes; an audit export finishes once", (t) =>
  forEachFilesDialect(t, "extraction and export states", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const at = db.features.timeToDb(new Date());
    const extraction = (id: string) => ({
      id,
      workspace_id: "ws1",
      archive_node_id: "archive",
      archive_version_id: "archive-v1",
      parent_id: root,
      status: "queued",
      reserved_bytes: 0,
      file_count: 0,
      folder_count: 0,
      extracted_bytes: 0,
      created_by: "ann",
      created_at: at,
      updated_at: at,
    });
    await db.db.insertInto("fs_extractions").values([extraction("x1"), extraction("x2")]).execute();
    const move = (id: string, values: Record<string, unknown>) => db.db.updateTable("fs_extractions").set(values).where("id", "=", id).execute();
    await t.rejects(move("x1", { status: "succeeded", finished_at: at }), "queued → succeeded is refused (it never ran)");
    await t.resolves(move("x1", { status: "running", reserved_bytes: 10 }), "queued → running");
    await t.rejects(move("x1", { status: "queued", reserved_bytes: 0 }), "running → queued is refused");
    await t.rejects(move("x1", { parent_id: "elsewhere" }), "its destination never changes");
    await t.resolves(move("x1", { status: "succeeded", reserved_bytes: 0, finished_at: at, file_count: 3 }), "running → succeeded");
    await t.rejects(move("x1", { file_count: 4 }), "a finished extraction never changes");
    await t.rejects(move("x1", { status: "failed", failure_code: "late" }), "nor fails afterwards");
    await t.resolves(move("x2", { status: "failed", failure_code: "archive_gone", finished_at: at }), "queued → failed");
    await t.rejects(move("x2", { status: "running", failure_code: null, finished_at: null, reserved_bytes: 1 }), "a failed extraction never runs");

    await db.db.insertInto("fs_audit_exports").values({ id: "e1", workspace_id: "ws1", requested_by: "ann", status: "pending", object_key: "files/ws1/audit/e1", created_at: at }).execute();
    const finish = (values: Record<string, unknown>) => db.db.updateTable("fs_audit_exports").set(values).where("id", "=", "e1").execute();
    await t.resolves(finish({ status: "done", size_bytes: 1, sha256: "0".repeat(64), line_count: 1, completed_at: at }), "pending → done");
    await t.rejects(finish({ line_count: 2 }), "a finished export never changes");
    await t.rejects(finish({ status: "pending", size_bytes: null, sha256: null, line_count: null, completed_at: null }), "nor goes back to pending");
    t.match(await db.db.selectFrom("fs_extractions").select(["id", "status"]).orderBy("id").execute(), [{ id: "x1", status: "succeeded" }, { id: "x2", status: "failed" }]);
  }),
);
