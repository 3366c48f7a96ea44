/**
 * Zip extraction over HTTP on the reference server (SQLite and Postgres): the request needs an
 * Idempotency-Key and answers 202 with the queued extraction (a replay answers the same one); the
 * in-process worker runs the job; the requester polls `GET /v1/extractions/:id` until it
 * succeeded; the files appear and are scanned like uploads. Another member's poll is 404.
 */
import { randomUUID } from "node:crypto";
import t from "tap";
import { startFilesServer, type Json, eachDialect } from "./http-support.js";
import { makeZip } from "./zip.js";

t.test("POST /v1/nodes/:id/extract answers 202 and the job unpacks the zip into scanned files the requester can follow", (t) =>
  eachDialect(t, "extract over HTTP", async (t, dialect) => {
    const { call, user, workspace, upload, published } = await startFilesServer(t, dialect);
    const ann = await user();
    const bob = await user();
    const ws = await workspace(ann, [bob]);
    const zip = makeZip([{ name: "inner/hello.txt", data: "hello from the archive", method: 8 }, { name: "top.txt", data: "top" }]);
    const archive = await upload(ann, ws.root, "bundle.zip", zip, 8 * 1024 * 1024);
    t.equal(archive.status, 202);
    const archiveId = String(archive.body.node_id);
    await published(ann, archiveId);

    t.match(await call(`/v1/nodes/${archiveId}/extract`, { user: ann, body: {} }), { status: 400, body: { code: "idempotency_key_required" } });
    const key = randomUUID();
    const requested = await call(`/v1/nodes/${archiveId}/extract`, { user: ann, body: {}, headers: { "Idempotency-Key": key } });
    t.match(requested, { status: 202, body: { archive_node_id: archiveId, parent_id: ws.root } });
    t.equal((await call(`/v1/nodes/${archiveId}/extract`, { user: ann, body: {}, headers: { "Idempotency-Key": key } })).body.id, requested.body.id, "a replay answers the same extraction");
    const id = String(requested.body.id);
    let extraction: Json = requested.body;
    const deadline = Date.now() + 10_000;
    while (extraction.status !== "succeeded" && extraction.status !== "failed" && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 50));
      extraction = (await call(`/v1/extractions/${id}`, { user: ann })).body;
    }
    t.match(extraction, { status: "succeeded", file_count: 2, folder_count: 1, failure_code: null }, "the worker ran the job");
    t.match(await call(`/v1/extractions/${id}`, { user: bob }), { status: 404 }, "another member cannot follow it");

    const children = await call(`/v1/nodes/${ws.root}/children`, { user: ann });
    const names = (children.body.data as Json[]).map((n) => n.name).sort();
    t.same(names, ["bundle.zip", "inner", "top.txt"]);
    const top = (children.body.data as Json[]).find((n) => n.name === "top.txt")!;
    t.match(await published(ann, String(top.id)), { size_bytes: 3, content_type: "text/plain" }, "scanned and published like an upload");
  }),
);
