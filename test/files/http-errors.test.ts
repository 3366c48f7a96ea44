/**
 * The problem codes of the drive, tree, upload and version routes over HTTP (SQLite and
 * Postgres): 403 only where the caller sees the node, 409 name_taken / move_into_descendant /
 * root_immutable / quota_below_usage / upload_* / not_a_file, 412 and 428 on PATCH, 413
 * quota_exceeded and file_too_large, 422 invalid_name / checksum_mismatch / validation, 423
 * version_quarantined for a blocked version, 400 invalid_cursor, and an Idempotency-Key reused
 * for another upload is 422.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import { startFilesServer, type Json, eachDialect } from "./http-support.js";
import { bytesOf, sha256 } from "./support.js";

const part = 8 * 1024 * 1024;

t.test("drive, tree, upload and version routes answer the specification's problem codes", (t) =>
  eachDialect(t, "problem codes", async (t, dialect) => {
    const { server, call, user, workspace, upload, published, scanned, putPart } = await startFilesServer(t, dialect, { FILES_DEFAULT_QUOTA_BYTES: "1000" });
    const ann = await user();
    const bob = await user();
    const ws = await workspace(ann, [bob]);

    // Drive: a member who is not the admin may not set the quota; never below what is used.
    t.match(await call(`/v1/workspaces/${ws.id}/drive/quota`, { user: bob, method: "PUT", body: { quota_bytes: 5000 } }), { status: 403, body: { code: "forbidden" } });
    t.match(await call(`/v1/workspaces/${ws.id}/drive/quota`, { user: ann, method: "PUT", body: { quota_bytes: -1 } }), { status: 422, body: { code: "validation_failed" } });
    t.match(await call(`/v1/workspaces/${ws.id}/drive/quota`, { user: ann, method: "PUT", body: { quota_bytes: 2000 } }), { status: 200, body: { quota_bytes: 2000 } });
    const audited = await server.core.database.db.selectFrom("fs_audit").select(["action", "actor_id"]).where("workspace_id", "=", ws.id).execute();
    t.same(audited, [{ action: "drive.quota_set", actor_id: ann.id }], "the quota change is audited, the refused ones are not");

    // Folders.
    const docs = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Docs", kind: "folder" } });
    const docsId = String(docs.body.id);
    t.match(await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Docs", kind: "folder" } }), { status: 409, body: { code: "name_taken" } });
    t.match(await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "a/b", kind: "folder" } }), { status: 422, body: { code: "invalid_name" } });
    const inner = await call("/v1/nodes", { user: ann, body: { parent_id: docsId, name: "Inner", kind: "folder" } });
    t.match(await call(`/v1/nodes/${docsId}/permissions`, { user: ann, body: { user_id: bob.id, role: "viewer" } }), { status: 200, body: { role: "viewer", user_id: bob.id } });
    t.match(await call("/v1/nodes", { user: bob, body: { parent_id: docsId, name: "Mine", kind: "folder" } }), { status: 403 }, "a viewer sees the folder but may not create in it");
    t.match(await call(`/v1/nodes/${docsId}`, { user: bob, method: "PATCH", body: { name: "Bob's" }, headers: { "If-Match": "1" } }), { status: 403 }, "nor rename it");
    t.match(await call(`/v1/nodes/${docsId}/legal-hold`, { user: bob, method: "PUT", body: { hold: true, reason: "x" } }), { status: 403 }, "nor hold it: admins only");
    t.match(await call(`/v1/nodes/${docsId}/legal-hold`, { user: ann, method: "PUT", body: { hold: true, reason: "" } }), { status: 422 });
    t.match(await call(`/v1/nodes/${String(inner.body.id)}/legal-hold`, { user: ann, method: "PUT", body: { hold: true, reason: "litigation" } }), { status: 200, body: { legal_hold: true } });

    // Moves and renames.
    const current = await call(`/v1/nodes/${docsId}`, { user: ann });
    t.match(current.headers.get("etag"), new RegExp(`^"${String(current.body.version)}\\.\\d+"$`), "the metadata ETag: the node's version and the ACL epoch");
    t.match(await call(`/v1/nodes/${docsId}`, { user: ann, method: "PATCH", body: { parent_id: inner.body.id }, headers: { "If-Match": String(current.body.version) } }), {
      status: 409,
      body: { code: "move_into_descendant" },
    });
    await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Taken", kind: "folder" } });
    t.match(await call(`/v1/nodes/${docsId}`, { user: ann, method: "PATCH", body: { name: "Taken" }, headers: { "If-Match": String(current.body.version) } }), { status: 409, body: { code: "name_taken" } });
    t.match(await call(`/v1/nodes/${ws.root}`, { user: ann, method: "PATCH", body: { name: "x" }, headers: { "If-Match": "1" } }), { status: 409, body: { code: "root_immutable" } });
    t.match(await call(`/v1/nodes/${ws.root}`, { user: ann, method: "DELETE" }), { status: 409, body: { code: "root_immutable" } });
    t.match(await call(`/v1/nodes/${docsId}`, { user: ann, method: "PATCH", body: { name: "y" }, headers: { "If-Match": "*" } }), { status: 400, body: { code: "invalid_if_match" } });

    // Trash and restore: the name was taken again meanwhile.
    const trashMe = await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Old", kind: "folder" } });
    t.equal((await call(`/v1/nodes/${String(trashMe.body.id)}`, { user: ann, method: "DELETE" })).status, 204);
    await call("/v1/nodes", { user: ann, body: { parent_id: ws.root, name: "Old", kind: "folder" } });
    t.match(await call(`/v1/nodes/${String(trashMe.body.id)}/restore`, { user: ann, method: "POST" }), { status: 409, body: { code: "name_taken" } });

    // Uploads: limits, checksums, settled sessions.
    const newUpload = (body: Json, key = randomUUID()) => call("/v1/uploads", { user: ann, headers: { "Idempotency-Key": key }, body });
    const small = bytesOf("hello, files");
    const base = { parent_id: docsId, name: "hello.txt", size_bytes: small.length, sha256: sha256(small) };
    t.match(await newUpload({ ...base, size_bytes: 3000, part_sha256: [sha256("x")] }), { status: 413, body: { code: "quota_exceeded" } });
    t.match(await newUpload({ ...base, size_bytes: 6 * 1024 ** 3 }), { status: 413, body: { code: "file_too_large" } });
    t.match(await newUpload({ ...base, sha256: "NOT-HEX" }), { status: 422, body: { code: "validation_failed" } });
    t.match(await newUpload({ ...base, name: "Inner" }), { status: 409, body: { code: "name_taken" } });
    const key = randomUUID();
    const opened = await newUpload(base, key);
    t.equal(opened.status, 201);
    t.match(await newUpload({ ...base, name: "other.txt" }, key), { status: 422, body: { code: "idempotency_key_reused" } });
    const uploadId = String(opened.body.id);
    t.match(await call(`/v1/uploads/${uploadId}`, { user: bob }), { status: 404 }, "only the session's creator sees it");
    t.match(await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256("other") } }), { status: 422, body: { code: "checksum_mismatch" } });
    t.equal((await call(`/v1/uploads/${uploadId}`, { user: ann, method: "DELETE" })).status, 204, "abort");
    t.equal((await call(`/v1/uploads/${uploadId}`, { user: ann, method: "DELETE" })).status, 204, "abort again: as before");
    t.match(await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256(small) } }), { status: 409, body: { code: "upload_not_open" } });
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: 0, used_bytes: 0 } }, "the aborted reservation was released");

    const done = await upload(ann, docsId, "hello.txt", small, part);
    t.equal(done.status, 202);
    const fileId = String(done.body.node_id);
    const doneUpload = (await call(`/v1/nodes/${fileId}/versions`, { user: ann })).body.data as Json[];
    t.equal(doneUpload.length, 1);
    await published(ann, fileId);
    t.match(await call(`/v1/workspaces/${ws.id}/drive/quota`, { user: ann, method: "PUT", body: { quota_bytes: 1 } }), { status: 409, body: { code: "quota_below_usage" } });

    // A blocked version (EICAR) is never downloadable: 423.
    const infected = await upload(ann, docsId, "hello.txt", bytesOf(eicarTestString), part, { node_id: fileId });
    t.equal(infected.status, 202);
    const blocked = await scanned(ann, fileId, String(infected.body.id));
    t.equal(blocked.status, "blocked", "EICAR ends blocked");
    t.match(await call(`/v1/nodes/${fileId}/downloads`, { user: ann, body: { version_id: infected.body.id } }), {
      status: 423,
      body: { code: "version_quarantined", version_status: "blocked" },
    });
    t.match(await call(`/v1/nodes/${fileId}/versions/${String(infected.body.id)}/restore`, { user: ann, method: "POST" }), { status: 423, body: { code: "version_quarantined" } });
    t.match(await call(`/v1/nodes/${fileId}/downloads`, { user: ann, body: {} }), { status: 201 }, "the current version still downloads");
    t.match(await call(`/v1/nodes/${docsId}/downloads`, { user: ann, body: {} }), { status: 409, body: { code: "not_a_file" } });
    t.match(await call(`/v1/nodes/${docsId}/versions`, { user: ann }), { status: 409, body: { code: "not_a_file" } });
    t.match(await call(`/v1/nodes/${fileId}/versions?cursor=bogus`, { user: ann }), { status: 400, body: { code: "invalid_cursor" } });
    t.match(await call(`/v1/nodes/${docsId}/children?cursor=bogus`, { user: ann }), { status: 400, body: { code: "invalid_cursor" } });

    // Restoring the first version makes it current again as version 3.
    const first = doneUpload[0]!;
    const restored = await call(`/v1/nodes/${fileId}/versions/${String(first.id)}/restore`, { user: ann, method: "POST" });
    t.match(restored, { status: 201, body: { number: 3, status: "published", is_current: true, restored_from_id: first.id } });

    // Completing a completed session with another checksum, aborting it: 409.
    const sessions = await newUpload({ ...base, name: "twice.txt" });
    const sid = String(sessions.body.id);
    const grant = (sessions.body.parts as Json[])[0]!;
    t.equal((await putPart(grant, small)).status, 201);
    t.match(await call(`/v1/uploads/${sid}/complete`, { user: ann, body: { sha256: sha256(small) } }), { status: 202 });
    t.match(await call(`/v1/uploads/${sid}/complete`, { user: ann, body: { sha256: sha256("different") } }), { status: 409, body: { code: "upload_completed" } });
    t.match(await call(`/v1/uploads/${sid}`, { user: ann, method: "DELETE" }), { status: 409, body: { code: "upload_not_open" } });
  }),
);

