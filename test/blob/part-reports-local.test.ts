/**
 * The one client protocol of uploads on the local store (docs/decisions.md, File storage:
 * S3-compatible store): a part's PUT answers an `ETag` (the part's SHA-256, quoted) as object
 * stores do; reporting it (PUT /v1/uploads/:id/parts/:part_number, or `parts` in complete) is
 * accepted, while the received parts are still what the store holds — a report does not make a
 * part received. SQLite and Postgres.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { dialects } from "../support/databases.js";
import { startFilesServer, type Json } from "../files/http-support.js";
import { sha256 } from "../files/support.js";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";

const partSize = defaultFilesSettings.partSizeBytes;

for (const dialect of dialects) {
  t.test(`the local store answers each part's ETag and accepts reports; received parts are what it holds [${dialect}]`, async (t) => {
    const { call, user, workspace, putPart } = await startFilesServer(t, dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const bytes = new Uint8Array(partSize + 5).map((_, i) => 65 + (i % 20));
    const parts = [sha256(bytes.subarray(0, partSize)), sha256(bytes.subarray(partSize))];
    const session = await call("/v1/uploads", {
      user: ann,
      headers: { "Idempotency-Key": randomUUID() },
      body: { parent_id: ws.root, name: "local.txt", size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain", part_sha256: parts },
    });
    t.equal(session.status, 201);
    const id = String(session.body.id);
    const grants = session.body.parts as Json[];
    const first = await putPart(grants[0]!, bytes.subarray(0, partSize));
    t.equal(first.status, 201);
    t.equal(first.headers.get("etag"), `"${parts[0]}"`, "the PUT answers an ETag: the part's SHA-256");
    t.match(await call(`/v1/uploads/${id}/parts/1`, { user: ann, method: "PUT", body: { etag: first.headers.get("etag") } }), { status: 200, body: { received_parts: [1] } });
    t.match(await call(`/v1/uploads/${id}/parts/2`, { user: ann, method: "PUT", body: { etag: '"not-stored"' } }), { status: 200, body: { received_parts: [1] } }, "a report of a part the store does not hold changes nothing");
    t.match(await call(`/v1/uploads/${id}/parts/2`, { user: ann, method: "PUT", body: { etag: "" } }), { status: 422 }, "an empty ETag is refused");
    const second = await putPart(grants[1]!, bytes.subarray(partSize));
    t.equal(second.status, 201);
    const completed = await call(`/v1/uploads/${id}/complete`, { user: ann, body: { sha256: sha256(bytes), parts: [{ part_number: 2, etag: second.headers.get("etag") }] } });
    t.match(completed, { status: 202, body: { size_bytes: bytes.length, sha256: sha256(bytes) } });
    t.match(await call(`/v1/uploads/${id}/parts/1`, { user: ann, method: "PUT", body: { etag: first.headers.get("etag") } }), { status: 409, body: { code: "upload_not_open" } }, "a settled upload takes no reports");
  });
}
