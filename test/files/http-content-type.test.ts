/**
 * Spec (Authentication 3): "Presigned storage operations bind the object key, method, size or
 * checksum, and expiry" — the declared content type travels in the grants' headers and in the
 * download's Content-Type; conventions (Errors): bad input answers a precise problem. A declared
 * content type must be a media type (`type/subtype`, optional `; name=value` parameters, visible
 * ASCII only): anything else is 422 `validation_failed` on `content_type` and no session is
 * opened, so a header break (CR/LF) or a value the grants' PUT cannot carry is never stored.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { startFilesServer, eachDialect } from "./http-support.js";
import { bytesOf, sha256 } from "./support.js";

t.test("an upload's declared content type is a media type; anything else is 422 on content_type and opens nothing", (t) =>
  eachDialect(t, "content type", async (t, dialect) => {
    const { server, call, user, workspace } = await startFilesServer(t, dialect);
    const ann = await user();
    const ws = await workspace(ann);
    const bytes = bytesOf("plain text");
    const open = (contentType: string) =>
      call("/v1/uploads", {
        user: ann,
        headers: { "Idempotency-Key": randomUUID() },
        body: { parent_id: ws.root, name: `f-${randomUUID().slice(0, 8)}.txt`, size_bytes: bytes.length, sha256: sha256(bytes), content_type: contentType },
      });
    for (const bad of ["text/plain\r\nX-Injected: 1", "not-a-type", "text/", "/plain", "text/plain\u0000", "text/pl ain", "tëxt/plain", "text/plain; charset"]) {
      t.match(await open(bad), { status: 422, body: { code: "validation_failed", errors: [{ path: "content_type" }] } }, `${JSON.stringify(bad)} is refused`);
    }
    const sessions = await server.core.database.db.selectFrom("fs_upload_sessions").select("id").where("workspace_id", "=", ws.id).execute();
    t.same(sessions, [], "no session was opened");
    for (const good of ["text/plain", "text/plain; charset=utf-8", "application/vnd.openxmlformats-officedocument.wordprocessingml.document", 'text/plain;charset="utf-8"']) {
      t.equal((await open(good)).status, 201, `${JSON.stringify(good)} is a media type`);
    }
  }),
);
