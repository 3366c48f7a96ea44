/**
 * The tree's depth is bounded where it grows (FilesSettings.maxDepth: "Deepest tree a move or
 * access check walks"). Spec (Authentication 2): "ACL checks include ancestors"; an access check
 * walks at most maxDepth ancestors, so a node deeper than that would be checked without the grants
 * above the walk. Creating a folder, uploading a new file, moving a subtree or extracting an
 * archive that would put a node deeper than maxDepth is refused: 409 tree_too_deep (an extraction
 * ends `unsafe_path`) — SQLite and Postgres, with maxDepth 3.
 */
import t from "tap";
import { Effect } from "effect";
import { ObjectStore } from "../../ports/ObjectStore.js";
import type { FilesServices } from "../../core/files/Services.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { createUpload } from "../../core/files/CreateUpload.js";
import { runExtraction } from "../../core/files/ExtractArchive.js";
import { moveNode } from "../../core/files/MoveNode.js";
import { getExtraction, requestExtraction } from "../../core/files/RequestExtraction.js";
import { bytesOf, filesRuntime, forEachFilesDialect, publishFile, sha256, workspaceWithDrive, type FilesEnv } from "./support.js";
import { makeZip } from "./zip.js";

const folder = (env: FilesEnv, parentId: string, name: string) => env.attempt(createFolder({ userId: "ann", workspaceId: "ws1", parentId, name }));
const made = async (env: FilesEnv, parentId: string, name: string) => {
  const r = await folder(env, parentId, name);
  if (!r.ok) throw new Error(`folder ${name}: ${JSON.stringify(r.error)}`);
  return r.value;
};

t.test("no node is made or moved deeper than maxDepth: 409 tree_too_deep for a folder, an upload and a move; an extraction ends unsafe_path", (t) =>
  forEachFilesDialect(t, "tree depth", async (t, db) => {
    const env = filesRuntime(t, db, { maxDepth: 3 });
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const a = await made(env, root, "a");
    const b = await made(env, a.id, "b");
    const c = await made(env, b.id, "c");
    t.pass("depth 3 is allowed");
    t.match(await folder(env, c.id, "d"), { ok: false, error: { _tag: "TreeTooDeep", code: "tree_too_deep" } }, "a folder at depth 4 is refused");
    const bytes = bytesOf("deep");
    const upload = (parentId: string) =>
      env.attempt(createUpload({ userId: "ann", workspaceId: "ws1", parentId, name: "f.txt", sizeBytes: bytes.length, sha256: sha256(bytes), contentType: "text/plain", nodeId: null, partSha256: null }));
    t.match(await upload(c.id), { ok: false, error: { code: "tree_too_deep" } }, "so is a new file at depth 4");
    t.ok((await upload(b.id)).ok, "a new file at depth 3 is not");

    const x = await made(env, root, "x");
    const y = await made(env, x.id, "y");
    const move = (parentId: string) => env.attempt(moveNode({ userId: "ann", workspaceId: "ws1", nodeId: x.id, expectedVersion: x.version, name: null, parentId }));
    t.match(await move(b.id), { ok: false, error: { code: "tree_too_deep" } }, "a move that would put x's child at depth 4 is refused");
    t.match(await move(a.id), { ok: true, value: { parentId: a.id } }, "one that puts it at depth 3 is not");
    t.equal(y.parentId, x.id);

    const archive = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "deep.zip", bytes: makeZip([{ name: "p/q/r.txt", data: "x" }]) });
    const extractInto = async (parentId: string) => {
      const requested = await env.run(requestExtraction({ userId: "ann", workspaceId: "ws1", nodeId: archive.nodeId, parentId }));
      await env.run(runExtraction("ws1", requested.id));
      return env.run(getExtraction({ userId: "ann", workspaceId: "ws1", extractionId: requested.id }));
    };
    t.match(await extractInto(a.id), { status: "failed", failureCode: "unsafe_path", fileCount: 0 }, "an archive whose file would land at depth 4 is refused");
    t.match(await extractInto(root), { status: "succeeded" }, "at the root it lands at depth 3");
  }),
);

/*
 * The same bound when the destination moves deeper while its extraction runs: the room left below
 * it is checked again under the drive lock when the nodes are written (the move here happens while
 * the job reads the archive, between the job's first check and its write).
 */
t.test("an extraction whose destination moved deeper meanwhile writes nothing past maxDepth (unsafe_path)", (t) =>
  forEachFilesDialect(t, "tree depth, moving destination", async (t, db) => {
    const env = filesRuntime(t, db, { maxDepth: 4 });
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const destination = await made(env, root, "d");
    const deeper = await made(env, root, "e");
    const archive = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "deep.zip", bytes: makeZip([{ name: "p/q/r.txt", data: "x" }]) });
    const requested = await env.run(requestExtraction({ userId: "ann", workspaceId: "ws1", nodeId: archive.nodeId, parentId: destination.id }));
    // While the job reads the archive, d moves under e: its files would land at depth 5.
    const movingWhileRead = Effect.gen(function* () {
      const store = yield* ObjectStore;
      const context = yield* Effect.context<FilesServices>();
      let moved = false;
      const moveOnce = Effect.suspend(() => {
        if (moved) return Effect.void;
        moved = true;
        return moveNode({ userId: "ann", workspaceId: "ws1", nodeId: destination.id, expectedVersion: destination.version, name: null, parentId: deeper.id }).pipe(Effect.orDie, Effect.asVoid, Effect.provide(context));
      });
      return yield* Effect.provideService(runExtraction("ws1", requested.id), ObjectStore, { ...store, read: (key: string) => Effect.zipRight(moveOnce, store.read(key)) });
    });
    await env.run(movingWhileRead);
    t.match(await env.run(getExtraction({ userId: "ann", workspaceId: "ws1", extractionId: requested.id })), { status: "failed", failureCode: "unsafe_path", fileCount: 0 }, "refused");
    const names = (await db.db.selectFrom("fs_nodes").select("name").where("workspace_id", "=", "ws1").execute()).map((r) => r.name);
    t.notOk(names.includes("r.txt"), "nothing written past the bound");
  }),
);
