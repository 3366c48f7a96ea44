/**
 * Spec (Endpoints rule 1): "An unknown object returns 404 where 403 would leak its existence";
 * the workspace is the tenant boundary. test/files/http-access.test.ts covers most routes; this
 * covers the rest of the module's routes that name a workspace's object: archive extraction
 * (request and read), thumbnails, part reports, audit exports (request and read) and drive
 * search. A member of another workspace gets the 404 of an unknown object from each, and nothing
 * changes — SQLite and Postgres.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { startFilesServer, eachDialect } from "./http-support.js";
import { sha256 } from "./support.js";
import { makeZip } from "./zip.js";

const part = 8 * 1024 * 1024;

t.test("another workspace's extractions, thumbnails, upload parts, audit exports and search answer 404", (t) =>
  eachDialect(t, "isolation of the other routes", async (t, dialect) => {
    const { server, call, user, workspace, upload, published } = await startFilesServer(t, dialect);
    const ann = await user();
    const eve = await user();
    const ws = await workspace(ann);
    await workspace(eve);
    const zip = await upload(ann, ws.root, "a.zip", makeZip([{ name: "one.txt", data: "one", method: 0 }]), part);
    const zipId = String(zip.body.node_id);
    await published(ann, zipId);
    const extraction = await call(`/v1/nodes/${zipId}/extract`, { user: ann, body: {}, headers: { "Idempotency-Key": randomUUID() } });
    t.equal(extraction.status, 202, "ann's extraction is accepted");
    const session = await call("/v1/uploads", {
      user: ann,
      headers: { "Idempotency-Key": randomUUID() },
      body: { parent_id: ws.root, name: "open.txt", size_bytes: 4, sha256: sha256("open") },
    });
    const exported = await call(`/v1/workspaces/${ws.id}/audit-exports`, { user: ann, method: "POST", headers: { "Idempotency-Key": randomUUID() } });
    t.equal(exported.status, 202, "ann's audit export is accepted");
    const before = await call(`/v1/nodes/${zipId}`, { user: ann });

    const attempts: Array<[string, { method?: string; body?: unknown; headers?: Record<string, string> }]> = [
      [`/v1/nodes/${zipId}/extract`, { body: {}, headers: { "Idempotency-Key": randomUUID() } }],
      [`/v1/extractions/${String(extraction.body.id)}`, {}],
      [`/v1/nodes/${zipId}/thumbnail`, {}],
      [`/v1/uploads/${String(session.body.id)}/parts/1`, { method: "PUT", body: { etag: '"abc"' } }],
      [`/v1/workspaces/${ws.id}/audit-exports`, { headers: { "Idempotency-Key": randomUUID() }, method: "POST" }],
      [`/v1/workspaces/${ws.id}/audit-exports/${String(exported.body.id)}`, {}],
      [`/v1/workspaces/${ws.id}/drive/search?q=one`, {}],
    ];
    for (const [path, options] of attempts) {
      const answer = await call(path, { user: eve, ...options });
      t.match(answer, { status: 404, body: { code: "not_found" } }, `${options.method ?? (options.body === undefined ? "GET" : "POST")} ${path.replace(/[0-9a-f-]{36}/g, ":id")} is 404 for another workspace`);
    }
    const after = await call(`/v1/nodes/${zipId}`, { user: ann });
    t.equal(after.body.version, before.body.version, "nothing was changed by those attempts");
    const extractions = await server.core.database.db.selectFrom("fs_extractions").select("id").where("workspace_id", "=", ws.id).execute();
    t.equal(extractions.length, 1, "no extraction was added");
    const exports = await server.core.database.db.selectFrom("fs_audit_exports").select("id").where("workspace_id", "=", ws.id).execute();
    t.equal(exports.length, 1, "no export was added");
  }),
);
