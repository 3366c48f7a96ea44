/**
 * The trash purge keeps the change window (spec: Limits "Sync tombstones and changes are kept
 * through a cursor window"; Change "A deletion leaves a tombstone kept through the cursor
 * window"). At trash retention (30 days) the purge removes the bytes, versions, links and
 * thumbnails and reduces the nodes to stubs (no name, no content); a cursor older than the purge
 * but inside the change window (90 days) still reads the changes up to the tombstone. Once the
 * tombstone leaves the window, the change retention deletes the stubs with their change rows.
 */
import t from "tap";
import { sweepChanges } from "../../core/files/ChangeRetention.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { listChanges } from "../../core/files/ListChanges.js";
import { listTrash } from "../../core/files/ListTrash.js";
import { getNode } from "../../core/files/NodeQueries.js";
import { restoreNode } from "../../core/files/RestoreNode.js";
import { trashNode } from "../../core/files/TrashNode.js";
import { sweepTrash } from "../../core/files/TrashPurgeSweep.js";
import { at } from "../worker/fixtures.js";
import { bytesOf, changeFeed, driveCounters, filesRuntime, forEachFilesDialect, publishFile, workspaceWithDrive } from "./support.js";

const dayMs = 86_400_000;

t.test("a cursor 40 days old in a workspace that purged its trash still reads the changes, the deletion included; the bytes are gone", (t) =>
  forEachFilesDialect(t, "purge keeps the change window", async (t, db) => {
    const env = filesRuntime(t, db);
    const t0 = Date.now();
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    const file = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "secret-plan.txt", bytes: bytesOf("the plan") });
    const [versionRow] = await db.db.selectFrom("fs_file_versions").select("object_key").where("node_id", "=", file.nodeId).execute();
    const objectKey = String(versionRow!.object_key);
    // The sync client's cursor, taken 40 days before it reads again.
    const { cursor } = await changeFeed(env, "ann", null);
    await env.run(at(t0 + dayMs)(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "later" })));
    await env.run(at(t0 + dayMs)(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id })));

    const outcomes = await env.run(at(t0 + 32 * dayMs)(sweepTrash({ day: "2026-01-01", after: null })));
    t.match(outcomes, [{ nodeId: docs.id, outcome: "purged", nodes: 2, versions: 1 }], "purged at trash retention");
    t.equal(await env.run(env.store.stat(objectKey)), null, "the bytes are gone");
    t.equal((await db.db.selectFrom("fs_file_versions").select("id").where("node_id", "in", [docs.id, file.nodeId]).execute()).length, 0, "and the versions");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "the quota is released");
    await env.run(at(t0 + 40 * dayMs)(sweepChanges({ day: "2026-02-09", after: null })));

    const read = await env.run(at(t0 + 40 * dayMs)(listChanges({ userId: "ann", workspaceId: "ws1", cursor, limit: 50 })));
    t.match(
      read.data.map((c) => ({ type: c.type, nodeId: c.nodeId })),
      [{ type: "node.created" }, { type: "node.trashed", nodeId: docs.id }],
      "the 40-day-old cursor reads the later folder and the deletion",
    );
    t.match(read.data[1], { node: null, tombstone: { id: docs.id, parentId: root, kind: "folder" } }, "the deletion is a tombstone");
    const stubs = await db.db.selectFrom("fs_nodes").select(["id", "name", "current_version_id", "size_bytes", "sha256", "content_type"]).where("id", "in", [docs.id, file.nodeId]).execute();
    t.equal(stubs.length, 2, "the nodes stay as stubs while their changes are in the window");
    for (const stub of stubs) {
      t.not(stub.name, "secret-plan.txt", "no name is kept");
      t.not(stub.name, "docs", "no name is kept");
      t.match(stub, { current_version_id: null, size_bytes: null, sha256: null, content_type: null }, "no content is kept");
    }
    t.match(await env.attempt(getNode({ userId: "ann", workspaceId: "ws1", nodeId: file.nodeId })), { ok: false, error: { _tag: "NotFound" } }, "a stub is not a node to read");
    t.match(await env.attempt(restoreNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id })), { ok: false, error: { _tag: "NotFound" } }, "nor to restore");

    // 91 days after the trashing, its change leaves the window: the stubs and their rows go.
    await env.run(at(t0 + 92 * dayMs)(sweepChanges({ day: "2026-04-02", after: null })));
    t.match(await env.attempt(listChanges({ userId: "ann", workspaceId: "ws1", cursor, limit: 50 })), { ok: false, error: { code: "cursor_expired" } }, "then the cursor expires");
    t.equal((await db.db.selectFrom("fs_nodes").select("id").where("id", "in", [docs.id, file.nodeId]).execute()).length, 0, "the stubs are deleted");
    t.equal((await db.db.selectFrom("fs_changes").select("seq").where("node_id", "in", [docs.id, file.nodeId]).execute()).length, 0, "with their change rows");
  }),
);

t.test("the database keeps a purged node a stub: never restored or changed again, and marked only without name or content", (t) =>
  forEachFilesDialect(t, "purged stub constraint", async (t, db) => {
    const env = filesRuntime(t, db);
    const t0 = Date.now();
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const gone = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "gone" }));
    const kept = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "kept.txt", bytes: bytesOf("kept") });
    await env.run(at(t0)(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: gone.id })));
    await env.run(at(t0 + 31 * dayMs)(sweepTrash({ day: "2026-01-01", after: null })));
    const bump = (id: string, set: Record<string, unknown>) =>
      db.db.updateTable("fs_nodes").set((eb) => ({ ...set, version: eb("version", "+", 1) })).where("id", "=", id).execute();
    await t.rejects(bump(gone.id, { trashed_at: null, trash_root_id: null }), "a purged node is never restored");
    await t.rejects(bump(gone.id, { purged_at: null }), "nor unmarked");
    await t.rejects(bump(gone.id, { name: "back" }), "nor renamed");
    await t.rejects(bump(kept.nodeId, { purged_at: db.features.timeToDb(new Date()) }), "an active node with content is never marked purged");
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: kept.nodeId }));
    await t.rejects(bump(kept.nodeId, { purged_at: db.features.timeToDb(new Date()) }), "nor a trashed one that keeps its name and content");
    t.same((await env.run(listTrash({ userId: "ann", workspaceId: "ws1", cursor: null, limit: 50 }))).data.map((n) => n.id), [kept.nodeId], "the trash lists no stub");
  }),
);
