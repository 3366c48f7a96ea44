/**
 * Spec (Resources): Change is the "ordered, monotonic metadata log per workspace that drives
 * sync"; "a deletion leaves a tombstone kept through the cursor window". A node that leaves a
 * user's view — moved out of their reach, or their grant revoked — is gone for that user's sync
 * client as surely as a deleted one: their feed says so (a `node.left_view` change addressed to
 * them, with a tombstone that does not say where the node went), and nobody else's feed does.
 */
import t from "tap";
import { createFolder } from "../../core/files/CreateFolder.js";
import { moveNode } from "../../core/files/MoveNode.js";
import { grantAccess, revokeAccess } from "../../core/files/Permissions.js";
import { changeFeed as feed, filesRuntime, forEachFilesDialect, workspaceWithDrive } from "./support.js";


t.test("a node moved out of a user's reach, or whose grant is revoked, leaves their view in their feed", (t) =>
  forEachFilesDialect(t, "left-view", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben", "cid"]);
    const folder = (parentId: string, name: string) => env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId, name }));
    const shared = await folder(root, "Shared");
    const secret = await folder(root, "Secret");
    const doc = await folder(shared.id, "Doc");
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben", role: "viewer" }));
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: secret.id, granteeId: "cid", role: "viewer" }));

    const benStart = await feed(env, "ben", null);
    t.ok(benStart.items.some((i) => i.nodeId === doc.id), "ben sees the doc while it is in Shared");
    const cidStart = await feed(env, "cid", null);
    const annStart = await feed(env, "ann", null);

    // Moved out of ben's reach (into a folder only cid and ann see).
    await env.run(moveNode({ userId: "ann", workspaceId: "ws1", nodeId: doc.id, expectedVersion: doc.version, name: null, parentId: secret.id }));
    const benAfterMove = await feed(env, "ben", benStart.cursor);
    t.match(benAfterMove.items, [{ nodeId: doc.id, type: "node.left_view", node: null, tombstone: { id: doc.id, kind: "folder", parentId: null } }], "ben's feed says the doc left his view");
    t.notOk(JSON.stringify(benAfterMove.items).includes(secret.id), "without saying where it went");
    const cidAfterMove = await feed(env, "cid", cidStart.cursor);
    t.ok(cidAfterMove.items.some((i) => i.nodeId === doc.id && i.type === "node.moved"), "cid, who now sees it, gets the move");
    t.notOk(cidAfterMove.items.some((i) => i.type === "node.left_view"), "and no left-view change");
    const annAfterMove = await feed(env, "ann", annStart.cursor);
    t.notOk(annAfterMove.items.some((i) => i.type === "node.left_view"), "ann never lost it: no left-view change for her");

    // A revocation: ben's grant on Shared goes, and Shared (with what is under it) leaves his view.
    await env.run(revokeAccess({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, granteeId: "ben" }));
    const benAfterRevoke = await feed(env, "ben", benAfterMove.cursor);
    t.match(benAfterRevoke.items, [{ nodeId: shared.id, type: "node.left_view", node: null, tombstone: { id: shared.id } }], "ben's feed says Shared left his view");
    t.same((await feed(env, "cid", cidAfterMove.cursor)).items, [], "cid never saw Shared: nothing for him");
  }),
);
