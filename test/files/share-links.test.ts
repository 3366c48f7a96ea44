/**
 * Share links: a node's owner creates a link whose token is shown once and stored only as its
 * hash; the recipient reaches exactly the shared node and its active subtree, nothing else;
 * revoked or expired links are NotFound; downloads need `allow_download` and a published version.
 */
import t from "tap";
import { createFolder } from "../../core/files/CreateFolder.js";
import { listSharedChildren } from "../../core/files/SharedChildren.js";
import { createShareLink, listShareLinks, resolveShare, revokeShareLink, shareDownload } from "../../core/files/ShareLinks.js";
import { trashNode } from "../../core/files/TrashNode.js";
import { forEachFilesDialect } from "./support.js";
import { bytesOf, filesRuntime, publishFile, sha256, workspaceWithDrive } from "./support.js";

t.test("a share token reaches exactly the shared folder's active subtree; revoked or expired is NotFound", (t) =>
  forEachFilesDialect(t, "share links", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" }));
    const outside = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "outside" }));
    const sub = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "sub" }));
    const file = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: sub.id, name: "a.txt", bytes: bytesOf("shared bytes") });

    t.match(await env.attempt(createShareLink({ userId: "ben", workspaceId: "ws1", nodeId: shared.id, expiresAt: null, allowDownload: true })), { ok: false, error: { _tag: "NotFound" } }, "only an owner shares");
    const { link, token } = await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, expiresAt: null, allowDownload: true }));
    t.ok(token.length >= 43, "a high-entropy token");
    const row = await db.db.selectFrom("fs_share_links").selectAll().where("id", "=", link.id).executeTakeFirstOrThrow();
    t.equal(row.token_hash, sha256(token), "only the hash is stored");
    t.notOk(JSON.stringify(await env.run(listShareLinks({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, cursor: null, limit: 50 }))).includes(token), "listing never shows the token");

    t.match(await env.run(resolveShare(token, null)), { node: { id: shared.id } }, "the shared node");
    t.match(await env.run(resolveShare(token, file.nodeId)), { node: { id: file.nodeId } }, "a node inside it");
    t.match(await env.attempt(resolveShare(token, outside.id)), { ok: false, error: { _tag: "NotFound" } }, "nothing outside it");
    t.match(await env.attempt(resolveShare(token, root)), { ok: false, error: { _tag: "NotFound" } }, "not its parent");
    t.match(await env.attempt(resolveShare("not-a-token", null)), { ok: false, error: { _tag: "NotFound" } });
    t.ok((await env.attempt(shareDownload(token, file.nodeId))).ok, "a download grant for a published file inside");

    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: sub.id }));
    t.match(await env.attempt(resolveShare(token, file.nodeId)), { ok: false, error: { _tag: "NotFound" } }, "a trashed subtree is out of reach");

    const viewOnly = await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, expiresAt: null, allowDownload: false }));
    t.match(await env.attempt(shareDownload(viewOnly.token, null)), { ok: false, error: { _tag: "Forbidden" } }, "no download without allow_download");

    await env.run(revokeShareLink({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, linkId: link.id }));
    t.match(await env.attempt(resolveShare(token, null)), { ok: false, error: { _tag: "NotFound" } }, "revoked: NotFound");

    const soon = await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, expiresAt: new Date(Date.now() + 200), allowDownload: true }));
    await new Promise((r) => setTimeout(r, 250));
    t.match(await env.attempt(resolveShare(soon.token, null)), { ok: false, error: { _tag: "NotFound" } }, "expired: NotFound");
  }),
);

t.test("a share token lists the shared folder's active children and its subfolders', never a folder outside or under a trashed one", (t) =>
  forEachFilesDialect(t, "shared children", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const mk = (parentId: string, name: string) => env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId, name }));
    const shared = await mk(root, "shared");
    const outside = await mk(root, "outside");
    const sub = await mk(shared.id, "sub");
    await mk(shared.id, "b");
    await mk(sub.id, "deep");
    const { token } = await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, expiresAt: null, allowDownload: false }));
    const list = (parentId: string | null, cursor: string | null = null, limit = 50) => listSharedChildren({ token, parentId, cursor, limit });
    const first = await env.run(list(null, null, 1));
    t.same(first.data.map((n) => n.name), ["b"], "by name, in keyset pages");
    t.same((await env.run(list(null, first.next_cursor, 1))).data.map((n) => n.name), ["sub"]);
    t.same((await env.run(list(sub.id))).data.map((n) => n.name), ["deep"], "a subfolder of the shared one");
    t.match(await env.attempt(list(outside.id)), { ok: false, error: { _tag: "NotFound" } }, "nothing outside");
    t.match(await env.attempt(listSharedChildren({ token: "nope", parentId: null, cursor: null, limit: 50 })), { ok: false, error: { _tag: "NotFound" } }, "an unknown token");
    await env.run(trashNode({ userId: "ann", workspaceId: "ws1", nodeId: sub.id }));
    t.same((await env.run(list(null))).data.map((n) => n.name), ["b"], "a trashed child is gone");
    t.match(await env.attempt(list(sub.id)), { ok: false, error: { _tag: "NotFound" } }, "and so is its folder");
  }),
);

/**
 * Spec (Authentication 2 and 5): "ACL checks include ancestors and current tenant membership";
 * "revocation bumps the epoch". A share link acts on its creator's authority: once the creator
 * is removed from the workspace, the link is refused (NotFound) like a revoked one.
 */
t.test("a share link stops working once its creator is removed from the workspace", (t) =>
  forEachFilesDialect(t, "creator removed", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const folder = await env.run(createFolder({ userId: "ben", workspaceId: "ws1", parentId: root, name: "ben's" }));
    const file = await publishFile(env, { userId: "ben", workspaceId: "ws1", parentId: folder.id, name: "b.txt", bytes: bytesOf("ben's bytes") });
    const { token } = await env.run(createShareLink({ userId: "ben", workspaceId: "ws1", nodeId: folder.id, expiresAt: null, allowDownload: true }));
    t.match(await env.run(resolveShare(token, file.nodeId)), { node: { id: file.nodeId } }, "works while ben is a member");
    t.ok((await env.attempt(shareDownload(token, file.nodeId))).ok, "and downloads");

    env.directory.set("ws1", "ben", null);
    t.match(await env.attempt(resolveShare(token, null)), { ok: false, error: { _tag: "NotFound" } }, "refused once ben left");
    t.match(await env.attempt(shareDownload(token, file.nodeId)), { ok: false, error: { _tag: "NotFound" } }, "no download either");
  }),
);

/*
 * decisions, files fix 9 (spec, What the service does: "scan and type detection"): a download is
 * served as its declared type only where the type detected from the bytes agrees, else as
 * application/octet-stream. A share link's recipient (an external one) gets the same: HTML
 * declared as image/png is neither an image nor a page through a link either.
 */
t.test("a download through a share link never serves a declared type the bytes contradict", (t) =>
  forEachFilesDialect(t, "share download types", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const shared = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "shared" }));
    const html = bytesOf("\n<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>");
    const fake = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "cat.png", bytes: html, contentType: "image/png" });
    const text = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: shared.id, name: "notes.txt", bytes: bytesOf("plain words"), contentType: "text/plain" });
    const { token } = await env.run(createShareLink({ userId: "ann", workspaceId: "ws1", nodeId: shared.id, expiresAt: null, allowDownload: true }));
    const servedAs = async (nodeId: string) => {
      const grant = await env.run(shareDownload(token, nodeId));
      const claims = env.store.verify(grant.url.slice(grant.url.lastIndexOf("/") + 1), "GET");
      return "t" in claims ? claims.t : undefined;
    };
    t.equal(await servedAs(fake.nodeId), "application/octet-stream", "HTML declared as a PNG goes out as opaque bytes through the link");
    t.equal(await servedAs(text.nodeId), "text/plain", "text declared as text keeps its type");
  }),
);
