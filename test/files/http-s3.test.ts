/**
 * File storage over HTTP on the reference server configured with OBJECT_STORE_URL pointing at an
 * S3-compatible server (s3rver on 127.0.0.1), SQLite and Postgres (issue 13, "The S3-compatible
 * store"; rules 1, 2 and 8): an upload in two parts PUT straight to presigned UploadPart URLs
 * (bytes never pass through the application), each part reported with its ETag, resume listing
 * the received parts from our database, complete (202, repeated: the same version) assembling
 * the parts in the store, the scan publishing the version, a presigned download with Range; an
 * abort and the expiry job releasing the reservation exactly once.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { expireUpload } from "../../core/files/ExpireUpload.js";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { dialects, type Dialect, type HasTeardown } from "../support/databases.js";
import { startS3Server } from "../support/s3Server.js";
import { startFilesServer, type Json, eachDialect } from "./http-support.js";
import { sha256 } from "./support.js";
import { clockAhead } from "../support/clockAhead.js";

const partSize = defaultFilesSettings.partSizeBytes;

/** The reference server on `dialect` with its ObjectStore on a fresh s3rver. */
const startOnS3 = async (t: HasTeardown, dialect: Dialect) => {
  const s3 = await startS3Server(t);
  const files = await startFilesServer(t, dialect, { ...s3.env, FILES_DEFAULT_QUOTA_BYTES: String(64 * 1024 * 1024) });
  /** PUTs `bytes` to a part grant as a client does: straight to the store. */
  const putPart = (grant: Json, bytes: Uint8Array) => fetch(String(grant.url), { method: "PUT", headers: grant.headers as Record<string, string>, body: bytes });
  return { s3, ...files, putPart };
};

/**
 * One such server per dialect, shared by every claim below (each makes its own users and
 * workspace), both started at once; closed when the file's tests end.
 */
const servers = new Map(dialects.map((dialect) => [dialect, startOnS3(t, dialect)] as const));
const serverOf = (dialect: Dialect) => servers.get(dialect)!;

/** A file of two parts: a full part and 37 bytes. */
const twoParts = () => {
  const bytes = new Uint8Array(partSize + 37).map((_, i) => 97 + ((i * 7) % 26));
  return { bytes, parts: [sha256(bytes.subarray(0, partSize)), sha256(bytes.subarray(partSize))] };
};

t.test("an upload in two parts to presigned S3 URLs: report, resume, complete in the store, scan, download with Range", { jobs: 2 }, (t) =>
  eachDialect(t, "s3 upload", async (t, dialect) => {
    const { s3, server, call, user, workspace, putPart, published } = await serverOf(dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const { bytes, parts } = twoParts();
    const request = { parent_id: ws.root, name: "big.txt", size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", part_sha256: parts };
    const session = await call("/v1/uploads", { user: ann, body: request, headers: { "Idempotency-Key": randomUUID() } });
    t.match(session, { status: 201, body: { status: "open", part_size_bytes: partSize, received_parts: [] } });
    const uploadId = String(session.body.id);
    const grants = session.body.parts as Json[];
    t.equal(grants.length, 2, "a grant per part");
    t.ok(grants.every((g) => String(g.url).startsWith(`${s3.endpoint}/${s3.bucket}/`)), "each grant is a presigned URL of the store, not an application route");
    t.ok(grants.every((g) => /[?&]uploadId=/.test(String(g.url)) && /[?&]partNumber=/.test(String(g.url))), "each is an UploadPart of one multipart upload");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: bytes.length, used_bytes: 0 } }, "the size is reserved");

    const first = await putPart(grants[0]!, bytes.subarray(0, partSize));
    t.equal(first.status, 200, "part 1 goes straight to the store");
    const etag = first.headers.get("etag");
    t.ok(etag !== null, "the store answers its ETag");
    const stillUnknown = await call(`/v1/uploads/${uploadId}`, { user: ann });
    t.match(stillUnknown, { status: 200, body: { received_parts: [] } }, "a part counts as received once reported (the store is not asked: no ListParts)");
    const reported = await call(`/v1/uploads/${uploadId}/parts/1`, { user: ann, method: "PUT", body: { etag } });
    t.match(reported, { status: 200, body: { received_parts: [1] } }, "reporting the part answers the session");
    t.match(await call(`/v1/uploads/${uploadId}/parts/3`, { user: ann, method: "PUT", body: { etag } }), { status: 422 }, "a part the upload does not have is refused");

    const resumed = await call(`/v1/uploads/${uploadId}`, { user: ann });
    t.match(resumed, { status: 200, body: { received_parts: [1] } }, "resume lists the received parts");
    const missing = resumed.body.parts as Json[];
    t.same(missing.map((g) => g.part_number), [2], "and grants only the missing part");
    t.match(await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256(bytes) } }), { status: 409, body: { code: "upload_incomplete" } }, "not before every part was reported");

    const second = await putPart(missing[0]!, bytes.subarray(partSize));
    t.equal(second.status, 200);
    // The last part is reported with the complete itself.
    const completed = await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256(bytes), parts: [{ part_number: 2, etag: second.headers.get("etag") }] } });
    t.match(completed, { status: 202, body: { number: 1, size_bytes: bytes.length, sha256: sha256(bytes), status: "quarantined" } }, "the store assembled the parts; size and SHA-256 verified");
    const again = await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256(bytes) } });
    t.match(again, { status: 202, body: { id: completed.body.id } }, "a retry after a lost response answers the same version");
    t.match(await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: "0".repeat(64) } }), { status: 409, body: { code: "upload_completed" } });

    const fileId = String(completed.body.node_id);
    const node = await published(ann, fileId);
    t.equal(node.current_version_id, completed.body.id, "the scan read the object from the store and published it");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { used_bytes: bytes.length, reserved_bytes: 0 } }, "the reservation became used bytes");

    const download = await call(`/v1/nodes/${fileId}/downloads`, { user: ann, body: {} });
    t.equal(download.status, 201);
    const url = String(download.body.url);
    t.ok(url.startsWith(`${s3.endpoint}/${s3.bucket}/`), "the download grant is a presigned URL of the store");
    t.notOk(url.startsWith(server.url), "not an application route");
    const whole = await fetch(url);
    t.equal(whole.status, 200);
    t.equal(whole.headers.get("content-type"), "text/plain");
    t.match(whole.headers.get("content-disposition") ?? "", /^attachment; filename="big.txt"/);
    t.equal(sha256(new Uint8Array(await whole.arrayBuffer())), sha256(bytes), "the stored bytes");
    const ranged = await fetch(url, { headers: { Range: `bytes=${partSize}-` } });
    t.equal(ranged.status, 206, "an interrupted download resumes with Range");
    t.equal(ranged.headers.get("content-range"), `bytes ${partSize}-${bytes.length - 1}/${bytes.length}`);
    t.same(new Uint8Array(await ranged.arrayBuffer()), bytes.subarray(partSize), "exactly the rest of the bytes");
  }),
);

t.test("a one-part upload on S3 and a stored object that does not match: 422 checksum_mismatch, nothing published, the reservation released", { jobs: 2 }, (t) =>
  eachDialect(t, "s3 mismatch", async (t, dialect) => {
    const { call, user, workspace, putPart } = await serverOf(dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const declared = new TextEncoder().encode("the declared bytes");
    const sent = new TextEncoder().encode("the other bytes!!!");
    const session = await call("/v1/uploads", {
      user: ann,
      headers: { "Idempotency-Key": randomUUID() },
      body: { parent_id: ws.root, name: "a.txt", size_bytes: declared.length, sha256: sha256(declared), content_type: "text/plain" },
    });
    t.equal(session.status, 201);
    const grant = (session.body.parts as Json[])[0]!;
    // s3rver, unlike S3, does not bind a part to a checksum: the server verifies at completion.
    const put = await putPart(grant, sent);
    t.equal(put.status, 200);
    const uploadId = String(session.body.id);
    t.equal((await call(`/v1/uploads/${uploadId}/parts/1`, { user: ann, method: "PUT", body: { etag: put.headers.get("etag") } })).status, 200);
    const completed = await call(`/v1/uploads/${uploadId}/complete`, { user: ann, body: { sha256: sha256(declared) } });
    t.match(completed, { status: 422, body: { code: "checksum_mismatch" } }, "the SHA-256 of the assembled object is computed, not taken from the client");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { used_bytes: 0, reserved_bytes: 0 } }, "released once");
    t.match(await call(`/v1/uploads/${uploadId}`, { user: ann }), { body: { status: "failed" } });
    t.match(await call(`/v1/nodes/${ws.root}/children`, { user: ann }), { body: { data: [] } }, "nothing published");
  }),
);

t.test("abort and expiry on S3 release the reservation exactly once and leave no object", { jobs: 2 }, (t) =>
  eachDialect(t, "s3 abort and expiry", async (t, dialect) => {
    const { server, call, user, workspace, putPart } = await serverOf(dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const { bytes, parts } = twoParts();
    const open = async (name: string) => {
      const session = await call("/v1/uploads", {
        user: ann,
        headers: { "Idempotency-Key": randomUUID() },
        body: { parent_id: ws.root, name, size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", part_sha256: parts },
      });
      t.equal(session.status, 201);
      const grant = (session.body.parts as Json[])[0]!;
      const put = await putPart(grant, bytes.subarray(0, partSize));
      t.equal((await call(`/v1/uploads/${String(session.body.id)}/parts/1`, { user: ann, method: "PUT", body: { etag: put.headers.get("etag") } })).status, 200);
      return String(session.body.id);
    };
    const aborted = await open("aborted.txt");
    const expiring = await open("expiring.txt");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: 2 * bytes.length } });

    t.equal((await call(`/v1/uploads/${aborted}`, { user: ann, method: "DELETE" })).status, 204, "abort");
    t.equal((await call(`/v1/uploads/${aborted}`, { user: ann, method: "DELETE" })).status, 204, "aborting again answers as before");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { reserved_bytes: bytes.length } }, "the abort released its reservation once");
    t.match(await call(`/v1/uploads/${aborted}/complete`, { user: ann, body: { sha256: sha256(bytes) } }), { status: 409, body: { code: "upload_not_open" } });

    // The expiry job's work, as the worker runs it when the session's expiry is due (a day later).
    const runtime = server.core.runtime;
    t.equal(await runtime.runPromise(expireUpload(ws.id, expiring)), null, "not before its expiry");
    const later = clockAhead(defaultFilesSettings.uploadTtlMs + 60_000);
    const expireLater = () => runtime.runPromise(Effect.withClock(expireUpload(ws.id, expiring), later));
    const [a, b] = await Promise.all([expireLater(), expireLater()]);
    t.same([a, b].sort(), [bytes.length, null], "two expiry runs at once release the bytes once");
    t.match(await call(`/v1/workspaces/${ws.id}/drive`, { user: ann }), { body: { used_bytes: 0, reserved_bytes: 0 } }, "nothing reserved, nothing used");
    t.match(await call(`/v1/uploads/${expiring}`, { user: ann }), { body: { status: "expired", parts: [] } }, "an expired session grants nothing");
    t.match(await call(`/v1/uploads/${expiring}/complete`, { user: ann, body: { sha256: sha256(bytes) } }), { status: 409, body: { code: "upload_not_open" } });
  }),
);
