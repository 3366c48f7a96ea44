/**
 * Spec rule 3 and "the download grant is issued only after a current authorization check": a
 * quarantined, blocked or scan_failed version never yields a download grant; a published one
 * does, short-lived, and its bytes are what was uploaded; a revoked viewer gets none.
 */
import t from "tap";
import { Effect, Stream } from "effect";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
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

/*
 * Spec (What the service does): "Background work: scan and type detection"; (Events)
 * UploadFinalized goes "to scanner and type detector". The scan detects the type from the bytes
 * and records it on the version; a download never serves bytes as the declared type they are not:
 * a file declared image/png that is really HTML goes out as an application/octet-stream
 * attachment (the grant handler always answers `Content-Disposition: attachment`), never as an
 * inline image/png nor as text/html; a real PNG keeps image/png.
 */
t.test("type detection: the scan records the type the bytes have, and a download never serves a declared type the bytes contradict", (t) =>
  forEachFilesDialect(t, "type-detection", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const servedAs = async (nodeId: string) => {
      const r = await env.attempt(requestDownload({ userId: "ann", workspaceId: "ws1", nodeId, versionId: null }));
      if (!r.ok) throw new Error(`no grant: ${JSON.stringify(r.error)}`);
      const claims = env.store.verify(r.value.url.slice(r.value.url.lastIndexOf("/") + 1), "GET");
      return "t" in claims ? claims.t : undefined;
    };
    const stored = (versionId: string) => env.run(Effect.flatMap(VersionsRepository, (versions) => versions.find("ws1", versionId)));

    const html = bytesOf("\n<!DOCTYPE html><html><body><script>alert(document.cookie)</script></body></html>");
    const fake = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "cat.png", bytes: html, contentType: "image/png" });
    t.match(await stored(fake.id), { contentType: "image/png", detectedContentType: "text/html" }, "the declared type is kept, the detected one recorded beside it");
    const fakeServed = await servedAs(fake.nodeId);
    t.equal(fakeServed, "application/octet-stream", "HTML declared as a PNG is served as opaque bytes");
    t.not(fakeServed, "text/html", "never as HTML");

    const png = Buffer.concat([Buffer.from([0x89, 0x50, 0x4e, 0x47, 0x0d, 0x0a, 0x1a, 0x0a]), Buffer.from("0000000dIHDR-rest-of-a-small-png")]);
    const real = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "real.png", bytes: png, contentType: "image/png" });
    t.match(await stored(real.id), { contentType: "image/png", detectedContentType: "image/png" }, "a real PNG is detected as one");
    t.equal(await servedAs(real.nodeId), "image/png", "and keeps image/png");

    const text = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "notes.txt", bytes: bytesOf("plain words"), contentType: "text/plain" });
    t.equal(await servedAs(text.nodeId), "text/plain", "text declared as text keeps its type");
  }),
);
