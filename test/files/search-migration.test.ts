/**
 * Files migration 9 on a drive that already has nodes (spec, background work: "search
 * indexing"): every node stored before is searchable by the words of its name at once; a file's
 * text once the search backfill job has given its document the current version and the text job
 * has read it — SQLite and Postgres.
 */
import t from "tap";
import { Effect } from "effect";
import { filesMigrations } from "../../adapters/sql/files/migrations/index.js";
import { migrate } from "../../adapters/sql/Migrations.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { moveNode } from "../../core/files/MoveNode.js";
import { indexChange } from "../../core/files/SearchIndexing.js";
import { searchNodes } from "../../core/files/SearchNodes.js";
import { indexVersionText } from "../../core/files/SearchText.js";
import { backfillSearchVersions } from "../../core/files/SearchBackfill.js";
import { Transactions } from "../../ports/Transactions.js";
import { forEachDialect, testModules } from "../support/databases.js";
import { bytesOf, filesRuntime, filesTestModules, publishFile, workspaceWithDrive, type FilesEnv } from "./support.js";

const beforeNine = { name: "files", migrations: filesMigrations.filter((m) => m.version < 9) };

const names = async (env: FilesEnv, q: string) =>
  (await env.run(searchNodes({ userId: "ann", workspaceId: "ws1", q, cursor: null, limit: 50 }))).data.map((n) => n.name).sort();

forEachDialect(
  t,
  "migration 9 indexes the names of the nodes stored before it; the search backfill brings in their text",
  async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const reports = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "Über-plan_v2" }));
    const version = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: reports.id, name: "q3-report.txt", bytes: bytesOf("zebra budget"), contentType: "text/plain" });

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
