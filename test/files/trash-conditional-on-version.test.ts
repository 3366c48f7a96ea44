/**
 * A conditional trash is decided by the database, not only by the read before it: the subtree
 * UPDATE of NodesRepository.trashSubtree with the root's expected version trashes nothing when
 * the root has moved on (SQLite and Postgres), and the whole subtree when it has not.
 */
import { Effect } from "effect";
import t from "tap";
import { createFolder } from "../../core/files/CreateFolder.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { filesRuntime, forEachFilesDialect, workspaceWithDrive } from "./support.js";

t.test("a subtree trash conditional on the root's version trashes nothing once the root has moved on", (t) =>
  forEachFilesDialect(t, "conditional subtree trash", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    const inner = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: docs.id, name: "inner" }));
    const trash = (rootVersion: number) => env.run(Effect.flatMap(NodesRepository, (nodes) => nodes.trashSubtree("ws1", docs.id, new Date(), rootVersion)));
    t.same(await trash(docs.version + 1), [], "a stale root version trashes nothing");
    const stored = await db.db.selectFrom("fs_nodes").select(["id", "trashed_at"]).where("id", "in", [docs.id, inner.id]).execute();
    t.ok(stored.length === 2 && stored.every((row) => row.trashed_at === null), "the folder and its child are active");
    t.same([...(await trash(docs.version))].sort(), [docs.id, inner.id].sort(), "the root's version trashes the subtree");
  }),
);
