/**
 * Spec rule 3 and "the download grant is issued only after a current authorization check": a
 * quarantined, blocked or scan_failed version never yields a download grant; a published one
 * does, short-lived, and its bytes are what was uploaded; a revoked viewer gets none.
 */
import t from "tap";
import { Stream } from "effect";
import { grantAccess, revokeAccess } from "../../core/files/Permissions.js";
import { requestDownload } from "../../core/files/RequestDownload.js";
import { scanVersion } from "../../core/files/ScanVersion.js";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { forEachFilesDialect } from "./support.js";
import { bytesOf, filesRuntime, publishFile, uploadFile, workspaceWithDrive } from "./support.js";

t.test("a quarantined or blocked version never yields a download; a published one does, short-lived, after a current access check", (t) =>
  forEachFilesDialect(t, "downloads", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const folder = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "f" }));
    const download = (userId: string, nodeId: string, versionId: string | null = null) => env.attempt(requestDownload({ userId, workspaceId: "ws1", nodeId, versionId }));

    const pending = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: folder.id, name: "a.txt", bytes: bytesOf("clean bytes") });
    t.match(await download("ann", pending.nodeId), { ok: false, error: { code: "version_quarantined" } }, "nothing before the scan");
    t.match(await download("ann", pending.nodeId, pending.id), { ok: false, error: { code: "version_quarantined" } }, "not the quarantined version by id either");
    await env.run(scanVersion("ws1", pending.id, { attempt: 1, maxAttempts: 3 }));
    const r = await download("ann", pending.nodeId);
    t.ok(r.ok, "a published version yields a grant");
    if (r.ok) {
      t.ok(r.value.expiresAt.getTime() - Date.now() <= 5 * 60 * 1000, "short-lived");
      const token = r.value.url.slice(r.value.url.lastIndexOf("/") + 1);
      const claims = env.store.verify(token, "GET");
      t.ok("k" in claims && claims.k === pending.objectKey, "bound to the version's object");
      const content = await env.run(env.store.read(pending.objectKey));
      const chunks = await env.run(Stream.runCollect(content!));
      t.equal(Buffer.concat([...chunks]).toString(), "clean bytes");
    }

    const infected = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: folder.id, name: "a.txt", bytes: bytesOf(eicarTestString), nodeId: pending.nodeId });
    await env.run(scanVersion("ws1", infected.id, { attempt: 1, maxAttempts: 3 }));
    t.match(await download("ann", pending.nodeId, infected.id), { ok: false, error: { code: "version_quarantined", status: "blocked" } }, "a blocked version never");
    t.match(await download("ann", pending.nodeId), { ok: true, value: { version: { id: pending.id } } }, "the current version stays the clean one");

    t.match(await download("ben", pending.nodeId), { ok: false, error: { _tag: "NotFound" } }, "no grant without access");
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, granteeId: "ben", role: "viewer" }));
    t.ok((await download("ben", pending.nodeId)).ok, "an inherited viewer downloads");
    await env.run(revokeAccess({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, granteeId: "ben" }));
    t.match(await download("ben", pending.nodeId), { ok: false, error: { _tag: "NotFound" } }, "revoked: none at the next request");
    const other = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: folder.id, name: "b.txt", bytes: bytesOf("b") });
    t.match(await download("ann", pending.nodeId, other.id), { ok: false, error: { _tag: "NotFound" } }, "a version of another file is NotFound");
  }),
);
