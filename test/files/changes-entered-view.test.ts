/**
 * Spec (Resources): Change is the "ordered, monotonic metadata log per workspace that drives
 * sync". A node that comes into a user's view — granted to them, or moved under a grant of theirs —
 * is new to that user's sync client, subtree and all, even when its own changes are old: their
 * feed says so (a `node.entered_view` change addressed to them, with the node as it is now), so
 * the client lists it. Nobody else's feed shows it, and nobody who could already see the node gets
 * one.
 */
import t from "tap";
import { createFolder } from "../../core/files/CreateFolder.js";
import { moveNode } from "../../core/files/MoveNode.js";
import { grantAccess, revokeAccess } from "../../core/files/Permissions.js";
import { indexChange } from "../../core/files/SearchIndexing.js";
import { changeFeed as feed, filesRuntime, forEachFilesDialect, workspaceWithDrive, type FilesEnv } from "./support.js";

/** The seq of each change the log holds, with its type and recipient. */
const logOf = async (env: FilesEnv) =>
  (await env.db.db.selectFrom("fs_changes").select(["seq", "node_id", "type", "recipient_id"]).where("workspace_id", "=", "ws1").orderBy("seq").execute()).map((r) => ({
    seq: Number(r.seq),
    nodeId: r.node_id,
    type: r.type,
    recipientId: r.recipient_id,
  }));

t.test("a grant makes the node enter the grantee's view in their feed only", (t) =>
  forEachFilesDialect(t, "entered-view-grant", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben", "cid"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "Shared" }));
    const inside = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "Inside" }));
    // Ben syncs a folder of his own, so his cursor is past Shared's history.
    await env.run(createFolder({ userId: "ben", workspaceId: "ws1", parentId: root, name: "Ben's" }));
    const benStart = await feed(env, "ben", null);
    const cidStart = await feed(env, "cid", null);
    const annStart = await feed(env, "ann", null);
    t.notOk(benStart.items.some((i) => i.nodeId === shared.id || i.nodeId === inside.id), "ben sees nothing of Shared before the grant");

    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    const benAfter = await feed(env, "ben", benStart.cursor);
    t.match(benAfter.items, [{ nodeId: shared.id, type: "node.entered_view", node: { id: shared.id, name: "Shared", parentId: root }, tombstone: null }], "Shared entered ben's view: list it");
    t.equal(benAfter.items.length, 1, "one change for the node and its subtree");
    t.same((await feed(env, "cid", cidStart.cursor)).items, [], "cid's feed does not show ben's entered view");
    t.notOk((await feed(env, "ann", annStart.cursor)).items.some((i) => i.type === "node.entered_view"), "nor ann's");
    t.same(
      (await logOf(env)).filter((c) => c.type === "node.entered_view").map((c) => [c.nodeId, c.recipientId]),
      [[shared.id, "ben"]],
      "one entered-view change, addressed to ben",
    );
    // Live sync: announced as any change (a DriveChanged with its seq, in its transaction), to its recipient's drive channel.
    const entered = (await logOf(env)).find((c) => c.type === "node.entered_view")!;
    const announced = (await env.db.db.selectFrom("outbox").select("event").where("type", "=", "DriveChanged").execute()).map(
      (r) => (typeof r.event === "string" ? JSON.parse(r.event) : r.event) as { data: { seq: number } },
    );
    t.ok(announced.some((e) => e.data.seq === entered.seq), "announced (a DriveChanged with its seq)");

    // Later changes of what entered his view reach him as any other.
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: inside.id, name: "Later" }));
    t.match((await feed(env, "ben", benAfter.cursor)).items, [{ type: "node.created", node: { name: "Later" } }], "and then the normal feed");
  }),
);

t.test("no entered-view change for a user who could already see the node", (t) =>
  forEachFilesDialect(t, "entered-view-no-noise", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "Shared" }));
    const inside = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "Inside" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    const before = (await logOf(env)).length;

    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "editor" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: inside.id, granteeId: "ben", role: "viewer" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: inside.id, granteeId: "ann", role: "owner" }));
    t.same((await logOf(env)).slice(before), [], "a stronger role, a grant below one he has, the owner's own grant: no change at all");
  }),
);

t.test("a grant given again after a revocation: the feed shows the node entering the view, not leaving it", (t) =>
  forEachFilesDialect(t, "entered-view-regrant", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "Shared" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    const start = await feed(env, "ben", null);
    await env.run(revokeAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben" }));
    const revoked = await feed(env, "ben", start.cursor);
    t.match(revoked.items, [{ nodeId: shared.id, type: "node.left_view" }], "the revocation: left his view");
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    t.match((await feed(env, "ben", revoked.cursor)).items, [{ nodeId: shared.id, type: "node.entered_view", node: { id: shared.id } }], "granted again: entered it");
    t.same((await feed(env, "ben", start.cursor)).items.map((i) => i.type), ["node.entered_view"], "read from before both, only the node entering his view");
  }),
);

t.test("a move into a user's view writes an entered-view change for each user who newly sees the node, and none for others", (t) =>
  forEachFilesDialect(t, "entered-view-move", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben", "cid", "dan"]);
    const folder = (parentId: string, name: string) => env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId, name }));
    const shared = await folder(root, "Shared");
    const secret = await folder(root, "Secret");
    const doc = await folder(secret.id, "Doc");
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: secret.id, granteeId: "cid", role: "viewer" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: doc.id, granteeId: "dan", role: "viewer" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "dan", role: "viewer" }));
    const start = { ben: await feed(env, "ben", null), cid: await feed(env, "cid", null), dan: await feed(env, "dan", null), ann: await feed(env, "ann", null) };
    t.notOk(start.ben.items.some((i) => i.nodeId === doc.id), "ben does not see Doc in Secret");
    const before = (await logOf(env)).length;

    await env.run(moveNode({ userId: "ann", workspaceId: "ws1", nodeId: doc.id, expectedVersion: doc.version, name: null, parentId: shared.id }));
    t.match(
      (await feed(env, "ben", start.ben.cursor)).items,
      [
        { nodeId: doc.id, type: "node.moved" },
        { nodeId: doc.id, type: "node.entered_view", node: { id: doc.id, parentId: shared.id }, tombstone: null },
      ],
      "ben, who now sees Doc: the move and Doc entering his view",
    );
    t.match((await feed(env, "cid", start.cid.cursor)).items, [{ nodeId: doc.id, type: "node.left_view" }], "cid, who no longer sees it: it left his view");
    t.same((await feed(env, "dan", start.dan.cursor)).items.map((i) => i.type), ["node.moved"], "dan, granted on Doc itself (and on Shared), always saw it: the move only");
    t.notOk((await feed(env, "ann", start.ann.cursor)).items.some((i) => i.type === "node.entered_view"), "ann, its owner, always saw it");
    t.same(
      (await logOf(env)).slice(before).filter((c) => c.type === "node.entered_view").map((c) => [c.nodeId, c.recipientId]),
      [[doc.id, "ben"]],
      "the move wrote one entered-view change: ben's",
    );
  }),
);

t.test("search indexing ignores an entered-view change (it is about a reader, not the node)", (t) =>
  forEachFilesDialect(t, "entered-view-search", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "Shared" }));
    const created = (await logOf(env)).find((c) => c.nodeId === shared.id && c.type === "node.created")!;
    await env.run(indexChange("ws1", created.seq));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    const entered = (await logOf(env)).find((c) => c.type === "node.entered_view")!;
    await env.run(indexChange("ws1", entered.seq));
    const document = await env.db.db.selectFrom("fs_search_documents").select("seq").where("workspace_id", "=", "ws1").where("node_id", "=", shared.id).executeTakeFirstOrThrow();
    t.equal(Number(document.seq), created.seq, "the document still describes the node's creation");
  }),
);
