/**
 * The reference server with OBJECT_STORE_URL set binds the S3 adapter for every module that
 * stores bytes, with nothing else to configure: project attachments go to presigned PUT URLs of
 * the store (bound to length, type and SHA-256), completion verifies the stored SHA-256, the
 * in-process worker scans the object read from the store, and the download grant is a presigned
 * GET — on SQLite and Postgres, against s3rver on 127.0.0.1. No grant handler is mounted.
 */
import { createHash } from "node:crypto";
import t from "tap";
import { forEachDialectConfig, testConfig } from "../hosts/support.js";
import { projectFixture, startProjectsServer } from "../projects/support.js";
import { startS3Server } from "../support/s3Server.js";

forEachDialectConfig(t, "attachments go straight to the S3-compatible store and back", async (t, _config, dialect) => {
  const s3 = await startS3Server(t);
  const config = await testConfig(dialect, t, { ...s3.env });
  const { server, client } = await startProjectsServer(t, config);
  const { owner, projectId } = await projectFixture(client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "On S3" });
  const bytes = Buffer.from("kept in an S3-compatible bucket\n");
  const sha256 = createHash("sha256").update(bytes).digest("hex");
  const requested = await owner.call("POST", `/v1/tasks/${task.body.id}/attachments`, { filename: "s3.txt", content_type: "text/plain", size: bytes.length, sha256 }, { "Idempotency-Key": "s3-1" });
  t.equal(requested.status, 201);
  const upload = requested.body.upload as { url: string; headers: Record<string, string> };
  t.ok(upload.url.startsWith(`${s3.endpoint}/${s3.bucket}/`), "the upload grant is a presigned URL of the store");
  t.equal(upload.headers["x-amz-checksum-sha256"], Buffer.from(sha256, "hex").toString("base64"), "bound to the SHA-256 (S3 verifies it)");
  const put = await fetch(upload.url, { method: "PUT", headers: upload.headers, body: bytes });
  t.equal(put.status, 200, "stored by the store");
  const completed = await owner.call("POST", `/v1/attachments/${requested.body.attachment.id}/complete`);
  t.equal(completed.status, 202, "the stored size and SHA-256 match");
  let status = completed.body.status;
  for (let i = 0; i < 100 && status === "quarantined"; i++) {
    await new Promise((resolve) => setTimeout(resolve, 100));
    status = (await owner.call("GET", `/v1/attachments/${requested.body.attachment.id}`)).body.status;
  }
  t.equal(status, "clean", "the worker scanned the object read from the store");
  const grant = await owner.call("GET", `/v1/attachments/${requested.body.attachment.id}/download`);
  t.ok(String(grant.body.url).startsWith(`${s3.endpoint}/${s3.bucket}/`), "the download grant is a presigned URL of the store");
  const got = await fetch(String(grant.body.url));
  t.equal(got.status, 200);
  t.same(Buffer.from(await got.arrayBuffer()), bytes);
  t.equal((await fetch(`${server.url}/v1/blobs/anything`, { method: "PUT", body: "x" })).status, 404, "no local grant handler is mounted");
});
