/**
 * Spec (Authentication 3): "Presigned storage operations bind the object key, method, size or
 * checksum, and expiry"; conventions (Idempotency: the stored answer is replayed for 24 hours).
 * A part grant is a bearer capability to write into the session's objects, so POST /v1/uploads
 * keeps its answer without the grants: a replay under the same key answers the session with fresh
 * grants for the parts still missing (as a resume does), and none once the session is settled.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { startFilesServer, type Json, eachDialect } from "./http-support.js";
import { sha256 } from "./support.js";

t.test("an upload's part grants are not kept in the idempotency record; a replay grants the missing parts afresh, none once settled", (t) =>
  eachDialect(t, "upload grants unstored", async (t, dialect) => {
    const { server, call, user, workspace, putPart } = await startFilesServer(t, dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const partSize = defaultFilesSettings.partSizeBytes;
    const bytes = new Uint8Array(partSize + 10).map((_, i) => i % 251);
    const partSha = [sha256(bytes.subarray(0, partSize)), sha256(bytes.subarray(partSize))];
    const key = randomUUID();
    const body = { parent_id: ws.root, name: "g.bin", size_bytes: bytes.length, sha256: sha256(bytes), content_type: "application/octet-stream", part_sha256: partSha };
    const first = await call("/v1/uploads", { user: ann, headers: { "Idempotency-Key": key }, body });
    t.equal(first.status, 201);
    const firstParts = first.body.parts as Json[];
    t.equal(firstParts.length, 2, "the first answer grants both parts");

    const stored = await server.core.database.db.selectFrom("idempotency_keys").selectAll().where("key", "=", key).execute();
    t.equal(stored.length, 1, "the answer is kept for replays");
    for (const part of firstParts) t.notOk(JSON.stringify(stored).includes(String(part.url)), `but not part ${String(part.part_number)}'s grant URL`);

    t.ok((await putPart(firstParts[0]!, bytes.subarray(0, partSize))).status < 300, "part 1 stored");
    const replay = await call("/v1/uploads", { user: ann, headers: { "Idempotency-Key": key }, body });
    t.equal(replay.status, 201);
    t.equal(replay.headers.get("Idempotent-Replayed"), "true");
    t.equal(replay.body.id, first.body.id, "the replay answers the same session");
    t.same((replay.body.parts as Json[]).map((p) => p.part_number), [2], "with a fresh grant for the missing part only");
    t.ok((await putPart((replay.body.parts as Json[])[0]!, bytes.subarray(partSize))).status < 300, "the fresh grant stores the part");

    t.equal((await call(`/v1/uploads/${String(first.body.id)}`, { user: ann, method: "DELETE" })).status, 204, "aborted");
    const afterAbort = await call("/v1/uploads", { user: ann, headers: { "Idempotency-Key": key }, body });
    t.equal(afterAbort.status, 201);
    t.match(afterAbort.body, { id: first.body.id, status: "aborted" }, "a replay after the abort answers the session as it is");
    t.same(afterAbort.body.parts, [], "and grants nothing");
  }),
);

t.test("a replay of an upload's creation for an owner who lost access to the folder answers 404, never grants", (t) =>
  eachDialect(t, "upload replay after revocation", async (t, dialect) => {
    const { call, user, workspace } = await startFilesServer(t, dialect);
    const ann = await user();
    const bob = await user();
    const ws = await workspace(ann, [bob]);
    const folder = await call("/v1/nodes", { user: bob, body: { parent_id: ws.root, name: "Bob's", kind: "folder" } });
    const folderId = String(folder.body.id);
    t.equal((await call(`/v1/nodes/${folderId}/permissions`, { user: bob, body: { user_id: ann.id, role: "editor" } })).status, 200);
    const key = randomUUID();
    const bytes = new TextEncoder().encode("into bob's folder");
    const body = { parent_id: folderId, name: "a.txt", size_bytes: bytes.length, sha256: sha256(bytes), content_type: "text/plain" };
    const first = await call("/v1/uploads", { user: ann, headers: { "Idempotency-Key": key }, body });
    t.equal(first.status, 201);
    t.equal((await call(`/v1/nodes/${folderId}/permissions/${ann.id}`, { user: bob, method: "DELETE" })).status, 204, "bob revokes ann");
    const replay = await call("/v1/uploads", { user: ann, headers: { "Idempotency-Key": key }, body });
    t.match(replay, { status: 404, body: { code: "not_found" } }, "the replay finds nothing to grant");
    t.notOk(JSON.stringify(replay.body).includes("url"), "and carries no grant");
  }),
);
