/**
 * The reference server wiring: the blob grant handler is mounted at /v1/blobs/:grant_token, the
 * ObjectStore and Scanner are bound by the host (blobStorageModule), and the in-process worker
 * scans an attachment to clean — the whole flow over HTTP on SQLite and Postgres. BLOB_DIR
 * defaults to DATA_DIR/blobs.
 */
import { createHash } from "node:crypto";
import path from "node:path";
import t from "tap";
import { loadConfig } from "../../hosts/Config.js";
import { projectFixture, startProjectsServer } from "../projects/support.js";
import { forEachDialectConfig } from "../hosts/support.js";

forEachDialectConfig(t, `the reference server serves attachment uploads and downloads through blob grants`, async (t, config, dialect) => {
  const { server, client } = await startProjectsServer(t, config);
  const { owner, projectId } = await projectFixture(client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Wired" });
  const bytes = Buffer.from("wired through the reference server\n");
  const requested = await owner.call(
    "POST",
    `/v1/tasks/${task.body.id}/attachments`,
    { filename: "w.txt", content_type: "text/plain", size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") },
    { "Idempotency-Key": "wired-1" },
  );
  t.equal(requested.status, 201);
  t.match(requested.body.upload.url, /^\/v1\/blobs\//);
  const put = await fetch(`${server.url}${requested.body.upload.url}`, { method: "PUT", headers: requested.body.upload.headers, body: bytes });
  t.equal(put.status, 201);
  const completed = await owner.call("POST", `/v1/attachments/${requested.body.attachment.id}/complete`);
  t.equal(completed.status, 202);
  let status = completed.body.status;
  for (let i = 0; i < 100 && status === "quarantined"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await owner.call("GET", `/v1/attachments/${requested.body.attachment.id}`)).body.status;
  }
  t.equal(status, "clean", "the in-process worker ran the scan job");
  const grant = await owner.call("GET", `/v1/attachments/${requested.body.attachment.id}/download`);
  const got = await fetch(`${server.url}${grant.body.url}`);
  t.same(Buffer.from(await got.arrayBuffer()), bytes);
  const openapi = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { paths: Record<string, unknown> };
  t.ok(Object.keys(openapi.paths).some((p) => p.includes("attachments")), "the attachment routes are documented");
});

t.test("BLOB_DIR defaults to DATA_DIR/blobs; the signing secret must be long enough", async (t) => {
  const config = loadConfig({ DATA_DIR: "/tmp/dk-data" });
  t.equal(config.blobDir, path.resolve("/tmp/dk-data/blobs"));
  t.equal(config.usingDevelopmentBlobSecret, true);
  t.equal(loadConfig({ BLOB_DIR: "/srv/blobs", BLOB_SIGNING_SECRET: "x".repeat(40) }).blobDir, "/srv/blobs");
  t.throws(() => loadConfig({ BLOB_SIGNING_SECRET: "short" }));
});
