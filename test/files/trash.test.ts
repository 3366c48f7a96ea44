/**
 * Trash and restore: trashing a folder trashes its subtree, leaves a tombstone in the change feed
 * and produces NodeDeleted; the name becomes free; restoring brings the subtree back, 409
 * name_taken when the name was taken again.
 */
import t from "tap";
import { createFolder } from "../../core/files/CreateFolder.js";
import { listChanges } from "../../core/files/ListChanges.js";
import { setLegalHold } from "../../core/files/LegalHold.js";
import { listTrash } from "../../core/files/ListTrash.js";
import { listChildren } from "../../core/files/NodeQueries.js";
import { restoreNode } from "../../core/files/RestoreNode.js";
import { trashNode } from "../../core/files/TrashNode.js";
import { forEachFilesDialect } from "./support.js";
import { filesRuntime, workspaceWithDrive } from "./support.js";

t.test("trash takes the subtree, leaves a tombstone and NodeDeleted; restore brings it back unless the name is taken again", (t) =>
  forEachFilesDialect(t, "trash", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const mk = (parentId: string, name: string) => env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId, name }));
    const docs = await mk(root, "docs");
    const inner = await mk(docs.id, "inner");
    t.equal(await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id })), 2, "the folder and its child");
    const children = await env.run(listChildren({ userId: "ann", workspaceId: "ws1", nodeId: root, cursor: null, limit: 50 }));
    t.same(children.data.map((n) => n.name), [], "no longer listed");
    const feed = await env.run(listChanges({ userId: "ann", workspaceId: "ws1", cursor: null, limit: 50 }));
    const last = feed.data[feed.data.length - 1]!;
    t.match(last, { type: "node.trashed", nodeId: docs.id, node: null, tombstone: { id: docs.id, parentId: root } }, "a tombstone in the feed");
    t.equal((await db.db.selectFrom("outbox").select("id").where("type", "=", "NodeDeleted").execute()).length, 1, "NodeDeleted once");
    t.match(await env.attempt(restoreNode({ userId: "ann", workspaceId: "ws1", nodeId: inner.id })), { ok: false, error: { code: "node_trashed" } }, "a child comes back with its folder only");

    const again = await mk(root, "docs");
    t.match(await env.attempt(restoreNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id })), { ok: false, error: { code: "name_taken" } }, "409 while the name is taken");
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: again.id }));
    t.match(await env.run(restoreNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id })), { id: docs.id, trashedAt: null });
    const innerNow = await db.db.selectFrom("fs_nodes").select("trashed_at").where("id", "=", inner.id).executeTakeFirstOrThrow();
    t.equal(innerNow.trashed_at, null, "the subtree is back");
    t.match(await env.attempt(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: root })), { ok: false, error: { code: "root_immutable" } });
  }),
);

t.test("the trash lists the nodes trashed as roots, newest first in keyset pages, only what the caller may see", (t) =>
  forEachFilesDialect(t, "trash list", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["bob"]);
    const mk = (userId: string, parentId: string, name: string) => env.run(createFolder({ userId, workspaceId: "ws1", parentId, name }));
    const a = await mk("ann", root, "a");
    await mk("ann", a.id, "a-child");
    const b = await mk("ann", root, "b");
    const c = await mk("bob", root, "c");
    for (const [userId, node] of [["ann", a], ["ann", b], ["bob", c]] as const) {
      await env.run(trashNode({ userId, workspaceId: "ws1", nodeId: node.id }));
      await new Promise((resolve) => setTimeout(resolve, 5));
    }
    const list = (userId: string, cursor: string | null, limit = 50) => env.run(listTrash({ userId, workspaceId: "ws1", cursor, limit }));
    const first = await list("ann", null, 1);
    t.same(first.data.map((n) => n.name), ["b"], "newest first; a-child went with a and is not listed");
    const second = await list("ann", first.next_cursor, 1);
    t.same(second.data.map((n) => n.name), ["a"]);
    t.equal(second.next_cursor, null, "bob's folder is not ann's to see");
    t.same((await list("bob", null)).data.map((n) => n.name), ["c"], "bob sees his own only");
    await env.run(restoreNode({ userId: "ann", workspaceId: "ws1", nodeId: b.id }));
    t.same((await list("ann", null)).data.map((n) => n.name), ["a"], "a restored node leaves the trash");
    t.match(await env.attempt(listTrash({ userId: "carl", workspaceId: "ws1", cursor: null, limit: 50 })), { ok: false, error: { code: "not_found" } }, "a non-member learns nothing");
  }),
);

t.test("a workspace admin places and releases a legal hold on any node, audited with the reason; members cannot", (t) =>
  forEachFilesDialect(t, "legal hold", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann", "bob"]);
    const docs = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "docs" }));
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: docs.id }));
    const hold = (userId: string, value: boolean, reason = "litigation 42") => setLegalHold({ userId, workspaceId: "ws1", nodeId: docs.id, hold: value, reason });
    const held = await env.run(hold("adm", true));
    t.match(held, { legalHold: true, version: docs.version + 2 }, "the admin holds a trashed node without any role on it");
    t.match(await env.run(hold("adm", true)), { legalHold: true, version: held.version }, "holding again changes nothing");
    t.match(await env.attempt(hold("ann", false)), { ok: false, error: { _tag: "Forbidden" } }, "the owner sees it but may not release it");
    t.match(await env.attempt(hold("bob", false)), { ok: false, error: { _tag: "NotFound" } }, "a member who cannot see it learns nothing");
    t.match(await env.attempt(hold("adm", false, " ")), { ok: false, error: { code: "validation_failed" } }, "a reason is required");
    t.match(await env.run(hold("adm", false, "settled")), { legalHold: false });
    const audit = await db.db.selectFrom("fs_audit").select(["action", "reason", "actor_id"]).where("target_id", "=", docs.id).orderBy("created_at").orderBy("id").execute();
    t.same(audit, [
      { action: "node.legal_hold_placed", reason: "litigation 42", actor_id: "adm" },
      { action: "node.legal_hold_released", reason: "settled", actor_id: "adm" },
    ], "each change is audited once, with its reason");
  }),
);
