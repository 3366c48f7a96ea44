/**
 * Files migration 9 on a drive that already has nodes (spec, background work: "search
 * indexing"): every node stored before is searchable by the words of its name at once; a file's
 * text once the search backfill job has given its document the current version and the text job
 * has read it — SQLite and Postgres.
 */
import t from "tap";
import { Effect, Stream } from "effect";
import { filesMigrations } from "../../adapters/sql/files/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { moveNode } from "../../core/files/MoveNode.js";
import { indexChange } from "../../core/files/SearchIndexing.js";
import { searchNodes } from "../../core/files/SearchNodes.js";
import { indexVersionText } from "../../core/files/SearchText.js";
import { backfillSearchVersions } from "../../core/files/SearchBackfill.js";
import { Transactions } from "../../ports/Transactions.js";
import { forEachDialect, testModules } from "../support/databases.js";
import { bytesOf, changeRows, filesRuntime, filesTestModules, sha256, workspaceWithDriveRows, type FilesEnv } from "./support.js";

const beforeNine = { name: "files", migrations: filesMigrations.filter((m) => m.version < 9) };

const names = async (env: FilesEnv, q: string) =>
  (await env.run(searchNodes({ userId: "ann", workspaceId: "ws1", q, cursor: null, limit: 50 }))).data.map((n) => n.name).sort();

forEachDialect(
  t,
  "migration 9 indexes the names of the nodes stored before it; the search backfill brings in their text",
  async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDriveRows(env, db, "ws1", "ann");
    // Rows as the schema before migration 9 held them (written directly: today's use cases read
    // columns of later migrations).
    const time = db.features.timeToDb(new Date());
    const node = (id: string, parentId: string, name: string, kind: string) => ({
      id, workspace_id: "ws1", parent_id: parentId, name, kind, version: 1, created_by: "ann", created_at: time, updated_at: time,
    });
    await db.db.insertInto("fs_nodes").values(node("0190d000-0000-7000-8000-000000000001", root, "Über-plan_v2", "folder")).execute();
    const bytes = bytesOf("zebra budget");
    const version = { id: "0190d000-0000-7000-8000-000000000003", objectKey: "files/ws1/search-migration/object" };
    await env.run(env.store.put(version.objectKey, Stream.make(bytes)));
    await db.db.insertInto("fs_nodes").values(node("0190d000-0000-7000-8000-000000000002", "0190d000-0000-7000-8000-000000000001", "q3-report.txt", "file")).execute();
    await db.db.insertInto("fs_file_versions").values({
      id: version.id, workspace_id: "ws1", node_id: "0190d000-0000-7000-8000-000000000002", number: 1, size_bytes: bytes.length, sha256: sha256(bytes),
      content_type: "text/plain", object_key: version.objectKey, status: "published", is_current: db.dialect === "postgres" ? true : 1,
      created_by: "ann", created_at: time, published_at: time,
    }).execute();
    await db.db.updateTable("fs_nodes").set({ current_version_id: version.id, size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", version: 2 })
      .where("id", "=", "0190d000-0000-7000-8000-000000000002").execute();
    // The creator's owner grant on the folder, as CreateFolder writes it.
    await db.db.insertInto("fs_acl_entries").values({ workspace_id: "ws1", node_id: "0190d000-0000-7000-8000-000000000001", user_id: "ann", role: "owner", granted_by: "ann", created_at: time }).execute();
    const folderChange = changeRows(db, "ws1", "0190d000-0000-7000-8000-000000000001", "ann");
    const fileChange = changeRows(db, "ws1", "0190d000-0000-7000-8000-000000000002", "ann");
    await db.db.insertInto("fs_changes").values([folderChange(1, "node.created"), fileChange(2, "node.created"), { ...fileChange(3, "version.published"), version_id: version.id }]).execute();
    await db.db.updateTable("fs_drives").set({ change_seq: 3 }).where("workspace_id", "=", "ws1").execute();

    await migrate(db, filesTestModules);
    t.same(await names(env, "report"), ["q3-report.txt"], "a word of a stored name (split at its punctuation)");
    t.same(await names(env, "über plan v2"), ["Über-plan_v2"], "every word of a stored folder's name");
    t.same(await names(env, "zebra"), [], "the text waits for the backfill");
    const scheduledTexts = async () =>
      (await db.db.selectFrom("jobs").select(["payload"]).where("kind", "=", "files.search_text").execute()).map((j) => ({ payload: typeof j.payload === "string" ? j.payload : JSON.stringify(j.payload) }));
    t.equal(await env.run(backfillSearchVersions(0)), 1, "the backfill adopts the one stored file's current version (a folder has no type to adopt)");
    t.match(await scheduledTexts(), [{ payload: new RegExp(version.id) }], "and queues its text, keyed by version");
    t.equal(await env.run(backfillSearchVersions(0)), 0, "a second run finds nothing left");
    await env.run(indexVersionText("ws1", (await env.run(searchNodes({ userId: "ann", workspaceId: "ws1", q: "report", cursor: null, limit: 1 }))).data[0]!.id, version.id));
    t.same(await names(env, "zebra budget"), ["q3-report.txt"], "the stored file's text is searchable");

    const file = (await env.run(searchNodes({ userId: "ann", workspaceId: "ws1", q: "report", cursor: null, limit: 1 }))).data[0]!;
    const moved = await env.run(moveNode({ userId: "ann", workspaceId: "ws1", nodeId: file.id, expectedVersion: file.version, name: "q3-final.txt", parentId: null }));
    const seq = Number((await db.db.selectFrom("fs_drives").select("change_seq").where("workspace_id", "=", "ws1").executeTakeFirstOrThrow()).change_seq);
    await env.runtime.runPromise(Effect.flatMap(Transactions, (tx) => tx.run(indexChange("ws1", seq))));
    await env.run(indexVersionText("ws1", moved.id, version.id));
    t.same(await names(env, "final zebra"), ["q3-final.txt"], "after a change: the new name, the text kept");
  },
  [...testModules, beforeNine],
);
