/**
 * Task attachments (spec: attachments inherit task access; uploads go directly to storage with
 * signed, short-lived grants bound to key and size; files stay quarantined until checks complete
 * and a quarantined or infected file never yields a download) — SQLite and Postgres.
 */
import { createHash } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { attachmentScanJob } from "../../core/projects/AttachmentScan.js";
import { eicarTestString } from "../../adapters/scanner/SignatureScanner.js";
import { ScannerUnavailable, type Scanner } from "../../ports/Scanner.js";
import type { Job } from "../../ports/Jobs.js";
import { projectFixture } from "./support.js";
import { forEachDialectConfig } from "../hosts/support.js";
// The files host plus thumbnails (migration 7 and its job), which a clean scan now needs.
import { startFilesServer, uploadAttachment } from "../blob/filesHost.js";

const encode = (s: string) => new TextEncoder().encode(s);

forEachDialectConfig(t, `an attachment is quarantined until a clean scan, then downloadable with a grant`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId, clients } = await projectFixture(host.client, { reader: { workspace: "member", project: "viewer" } });
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Spec" });
  const bytes = encode("the specification, version 1\n");
  const { requested, put, completed } = await uploadAttachment(host, owner, task.body.id, bytes, "spec.txt", "text/plain");
  t.match(requested.body.attachment, { status: "pending", filename: "spec.txt", size: bytes.length, task_id: task.body.id, uploaded_by: owner.userId });
  t.notOk("object_key" in requested.body.attachment, "the object key stays internal");
  t.match(requested.body.upload, { method: "PUT", headers: { "Content-Type": "text/plain" } });
  t.ok(Date.parse(requested.body.upload.expires_at) > Date.now(), "the grant expires in the future");
  t.equal(put.status, 201, "the bytes went to the blob handler, not an application route");
  t.equal(completed.status, 202);
  t.equal(completed.body.status, "quarantined");
  const id = completed.body.id;

  const early = await clients.reader!.call("GET", `/v1/attachments/${id}/download`);
  t.equal(early.status, 409);
  t.equal(early.body.code, "attachment_quarantined", "a quarantined attachment never yields a download");
  const again = await owner.call("POST", `/v1/attachments/${id}/complete`);
  t.equal(again.status, 202, "completing again is harmless");
  const jobs = await host.db.db.selectFrom("jobs").select(["id"]).where("kind", "=", "projects.attachment_scan").execute();
  t.equal(jobs.length, 1, "one scan job, however often the upload is completed");

  await host.runJobs();
  const scanned = await clients.reader!.call("GET", `/v1/attachments/${id}`);
  t.match(scanned.body, { status: "clean", scan_detail: null });
  const grant = await clients.reader!.call("GET", `/v1/attachments/${id}/download`);
  t.equal(grant.status, 200, "a viewer may download a clean attachment");
  t.equal(grant.body.method, "GET");
  const got = await host.transfer(grant.body);
  t.equal(got.status, 200);
  t.same(got.bytes, Buffer.from(bytes));
  const listed = await clients.reader!.call("GET", `/v1/tasks/${task.body.id}/attachments`);
  t.same(listed.body.data.map((a: { id: string }) => a.id), [id]);
});

forEachDialectConfig(t, `the EICAR test file ends infected and is never downloadable`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Suspicious" });
  const { completed } = await uploadAttachment(host, owner, task.body.id, encode(eicarTestString), "eicar.com", "text/plain");
  await host.runJobs();
  const after = await owner.call("GET", `/v1/attachments/${completed.body.id}`);
  t.match(after.body, { status: "infected", scan_detail: "EICAR-Test-File" });
  const refused = await owner.call("GET", `/v1/attachments/${completed.body.id}/download`);
  t.equal(refused.status, 409);
  t.equal(refused.body.code, "attachment_infected");
});

forEachDialectConfig(t, `completion verifies the stored object; only the uploader completes; limits are enforced`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId, clients } = await projectFixture(host.client, { dev: { workspace: "member", project: "contributor" } });
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Upload rules" });
  const bytes = encode("draft");
  const requested = await owner.call("POST", `/v1/tasks/${task.body.id}/attachments`, {
    filename: "draft.txt",
    content_type: "text/plain",
    size: bytes.length,
    sha256: createHash("sha256").update(bytes).digest("hex"),
  });
  const id = requested.body.attachment.id;
  const premature = await owner.call("POST", `/v1/attachments/${id}/complete`);
  t.equal(premature.status, 409);
  t.equal(premature.body.code, "upload_incomplete");
  t.equal((await owner.call("GET", `/v1/attachments/${id}/download`)).body.code, "attachment_not_uploaded");
  await host.transfer(requested.body.upload, bytes);
  const stranger = await clients.dev!.call("POST", `/v1/attachments/${id}/complete`);
  t.equal(stranger.status, 403, "a project member who did not upload cannot complete");
  t.equal((await owner.call("POST", `/v1/attachments/${id}/complete`)).status, 202);

  const huge = await owner.call("POST", `/v1/tasks/${task.body.id}/attachments`, { filename: "big.bin", content_type: "application/octet-stream", size: 200 * 1024 * 1024, sha256: "a".repeat(64) });
  t.equal(huge.status, 413);
  t.equal(huge.body.code, "attachment_too_large");
  const invalid = await owner.call("POST", `/v1/tasks/${task.body.id}/attachments`, { filename: "../x", content_type: "nope", size: 0, sha256: "xyz" });
  t.equal(invalid.status, 422);
  t.same(invalid.body.errors.map((e: { path: string }) => e.path).sort(), ["content_type", "filename", "sha256", "size"]);
  await owner.call("DELETE", `/v1/tasks/${task.body.id}`);
  const trashed = await owner.call("POST", `/v1/tasks/${task.body.id}/attachments`, { filename: "a.txt", content_type: "text/plain", size: 1, sha256: "b".repeat(64) });
  t.equal(trashed.status, 409);
  t.equal(trashed.body.code, "task_deleted");
});

forEachDialectConfig(t, `attachments inherit task access: other workspaces and unshared guests get 404`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId, clients } = await projectFixture(host.client, {
    guest: { workspace: "guest" },
    viewer: { workspace: "member", project: "viewer" },
  });
  const outsider = await host.client();
  await outsider.call("POST", "/v1/workspaces", { name: "Other" });
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Private" });
  const { completed } = await uploadAttachment(host, owner, task.body.id, encode("secret plans"), "notes.txt", "text/plain");
  await host.runJobs();
  const id = completed.body.id;
  for (const [name, who] of [["another workspace", outsider], ["an unshared guest", clients.guest!]] as const) {
    t.equal((await who.call("GET", `/v1/attachments/${id}`)).status, 404, `${name}: read`);
    t.equal((await who.call("GET", `/v1/attachments/${id}/download`)).status, 404, `${name}: download`);
    t.equal((await who.call("POST", `/v1/attachments/${id}/complete`)).status, 404, `${name}: complete`);
    t.equal((await who.call("GET", `/v1/tasks/${task.body.id}/attachments`)).status, 404, `${name}: list`);
    const asked = await who.call("POST", `/v1/tasks/${task.body.id}/attachments`, { filename: "a.txt", content_type: "text/plain", size: 1, sha256: "c".repeat(64) });
    t.equal(asked.status, 404, `${name}: upload`);
  }
  const viewerUpload = await clients.viewer!.call("POST", `/v1/tasks/${task.body.id}/attachments`, { filename: "a.txt", content_type: "text/plain", size: 1, sha256: "c".repeat(64) });
  t.equal(viewerUpload.status, 403, "a viewer sees the task but may not attach");
  t.equal((await clients.viewer!.call("GET", `/v1/attachments/${id}/download`)).status, 200);
  // The database refuses an attachment pointing at a task of another project or workspace.
  const otherWs = await outsider.call("POST", "/v1/workspaces", { name: "Third" });
  const row = await host.db.db.selectFrom("pm_attachments").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
  await t.rejects(
    host.db.db.insertInto("pm_attachments").values({ ...row, id: `${id}-x`, object_key: `${row.object_key}-x`, workspace_id: otherWs.body.id }).execute(),
    "composite tenant key: no cross-workspace attachment",
  );
});

forEachDialectConfig(t, `a download grant ends with its holder's access to the task (403 grant_revoked)`, async (t, config, dialect) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId, clients } = await projectFixture(host.client, { viewer: { workspace: "member", project: "viewer" } });
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Board" });
  const bytes = encode("minutes of the board");
  const { completed } = await uploadAttachment(host, owner, task.body.id, bytes, "minutes.txt", "text/plain");
  await host.runJobs();
  const viewer = clients.viewer!;
  const grant = await viewer.call("GET", `/v1/attachments/${completed.body.id}/download`);
  t.equal(grant.status, 200);
  t.same((await host.transfer(grant.body)).bytes, Buffer.from(bytes), "the grant serves the bytes while the viewer reads the task");
  const ownersGrant = await owner.call("GET", `/v1/attachments/${completed.body.id}/download`);

  t.equal((await owner.call("DELETE", `/v1/projects/${projectId}/members/${viewer.userId}`)).status, 204);
  const refused = await host.transfer(grant.body);
  t.equal(refused.status, 403, "the removed member's grant is refused");
  t.match(JSON.parse(refused.bytes.toString("utf8")), { code: "grant_revoked" });
  t.notOk(refused.bytes.toString("utf8").includes("minutes of the board"), "no bytes");
  t.same((await host.transfer(ownersGrant.body)).bytes, Buffer.from(bytes), "a grant whose holder keeps access still serves");
});

forEachDialectConfig(t, `an unavailable scanner is retried, and after the last attempt the attachment is scan_failed`, async (t, config, dialect) => {
  const down: Scanner = { scan: () => Effect.fail(new ScannerUnavailable({ detail: "engine offline" })) };
  const host = await startFilesServer(t, config, { scanner: down });
  const { owner, projectId } = await projectFixture(host.client);
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Scan outage" });
  const { completed } = await uploadAttachment(host, owner, task.body.id, encode("fine"), "notes.txt", "text/plain");
  await host.runJobs(1);
  const job = await host.db.db.selectFrom("jobs").selectAll().where("kind", "=", "projects.attachment_scan").executeTakeFirstOrThrow();
  t.equal(job.status, "pending", "the failed scan is retried later");
  t.equal(Number(job.attempts), 1);
  t.equal((await owner.call("GET", `/v1/attachments/${completed.body.id}`)).body.status, "quarantined", "still quarantined between attempts");
  const fake = (attempts: number): Job => ({ id: "j", kind: job.kind, key: completed.body.id, payload: { attachment_id: completed.body.id }, status: "running", attempts, maxAttempts: 5, runAt: new Date(), lastError: null });
  const middle = await host.core.runtime.runPromiseExit(attachmentScanJob.run(fake(3)));
  t.equal(middle._tag, "Failure", "a middle attempt fails so the runner backs off");
  await host.run(attachmentScanJob.run(fake(5)));
  const after = await owner.call("GET", `/v1/attachments/${completed.body.id}`);
  t.match(after.body, { status: "scan_failed", scan_detail: "engine offline" });
  t.equal((await owner.call("GET", `/v1/attachments/${completed.body.id}/download`)).body.code, "attachment_scan_failed");
});

/**
 * docs/conventions.md (Idempotency: "the stored status and body are replayed"; Authentication:
 * secrets "never appear in logs") with the spec's "upload URLs are signed, short-lived" and
 * "access is rechecked on the task": an upload grant is a bearer capability, so the idempotency
 * record keeps the answer without it, and a replay under the same key makes a fresh grant only
 * for an uploader who still may attach to the task (and for what is left of the upload's
 * lifetime); one who lost access gets 404, not the stored grant.
 */
forEachDialectConfig(t, `an upload grant is not kept in the idempotency record; a replay re-checks access before granting again`, async (t, config) => {
  const host = await startFilesServer(t, config);
  const { owner, projectId, clients } = await projectFixture(host.client, { dev: { workspace: "member", project: "contributor" } });
  const dev = clients.dev!;
  const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Spec" });
  const bytes = encode("bytes to attach\n");
  const body = { filename: "a.txt", content_type: "text/plain", size: bytes.length, sha256: createHash("sha256").update(bytes).digest("hex") };
  const key = `attach-${task.body.id}`;
  const first = await dev.call("POST", `/v1/tasks/${task.body.id}/attachments`, body, { "Idempotency-Key": key });
  t.equal(first.status, 201);
  t.type(first.body.upload?.url, "string", "the first answer carries the grant");
  const stored = await host.db.db.selectFrom("idempotency_keys").selectAll().where("key", "=", key).execute();
  t.equal(stored.length, 1, "the answer is kept for replays");
  t.notOk(JSON.stringify(stored).includes(first.body.upload.url), "but not the grant's URL");

  const replay = await dev.call("POST", `/v1/tasks/${task.body.id}/attachments`, body, { "Idempotency-Key": key });
  t.equal(replay.status, 201);
  t.equal(replay.headers.get("Idempotent-Replayed"), "true");
  t.equal(replay.body.attachment.id, first.body.attachment.id, "the replay answers the same attachment");
  t.type(replay.body.upload?.url, "string", "with a working grant");
  t.ok(Date.parse(replay.body.upload.expires_at) <= Date.parse(first.body.attachment.upload_expires_at ?? first.body.upload.expires_at) + 1000, "that ends with the upload's own lifetime");
  t.equal((await host.transfer(replay.body.upload, bytes)).status, 201, "the fresh grant uploads the bytes");

  await owner.call("DELETE", `/v1/projects/${projectId}/members/${dev.userId}`);
  const after = await dev.call("POST", `/v1/tasks/${task.body.id}/attachments`, body, { "Idempotency-Key": key });
  t.equal(after.status, 404, "a replay for an uploader who lost access answers 404, never the stored grant");
});
