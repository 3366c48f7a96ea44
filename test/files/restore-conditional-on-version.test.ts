/**
 * A conditional restore is decided by the database, not only by the read before it: the UPDATE of
 * NodesRepository.restoreSubtree with the root's expected version restores nothing when the root
 * has moved on (SQLite and Postgres), and the whole subtree trashed with it when it has not.
 */
import { Effect } from "effect";
import t from "tap";
import { createFolder } from "../../core/files/CreateFolder.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { filesRuntime, forEachFilesDialect, workspaceWithDrive } from "./support.js";

t.test("a subtree restore conditional on the root's version restores nothing once the root has moved on", (t) =>
  forEachFilesDialect(t, "conditional subtree restore", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    const inner = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "inner" }));
    const nodes = <A>(f: (r: NodesRepository) => Effect.Effect<A>) => env.run(Effect.flatMap(NodesRepository, f));
    t.equal((await nodes((r) => r.trashSubtree("ws1", docs.id, new Date()))).length, 2);
    const trashedVersion = docs.version + 1;
    t.equal(await nodes((r) => r.restoreSubtree("ws1", docs.id, new Date(), trashedVersion + 1)), 0, "a stale root version restores nothing");
    const stored = await db.db.selectFrom("fs_nodes").select(["id", "trashed_at"]).where("id", "in", [docs.id, inner.id]).execute();
    t.ok(stored.length === 2 && stored.every((row) => row.trashed_at !== null), "the folder and its child stay in the trash");
    t.equal(await nodes((r) => r.restoreSubtree("ws1", docs.id, new Date(), trashedVersion)), 2, "the root's version restores the subtree");
    const after = await db.db.selectFrom("fs_nodes").select(["id", "trashed_at", "version"]).where("id", "=", docs.id).executeTakeFirstOrThrow();
    t.match(after, { trashed_at: null, version: trashedVersion + 1 });
  }),
);
