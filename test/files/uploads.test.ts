/**
 * Upload completion (spec rules 2 and 8; "Upload completion is keyed by session and checksum"):
 * the stored bytes are verified through the object store, a retry after a lost answer gets the
 * same version, a conflicting complete is 409, a name taken meanwhile is 409 and nothing is
 * published, and parallel completes make one version.
 */
import { Effect } from "effect";
import t from "tap";
import { abortUpload } from "../../core/files/AbortUpload.js";
import { objectRemovalJob } from "../../core/files/ObjectRemoval.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import type { FilesServices } from "../../core/files/Services.js";
import { runningJob } from "../worker/fixtures.js";
import { clockAhead } from "../support/clockAhead.js";
import { testSettings } from "./support.js";
import { completeUpload } from "../../core/files/CompleteUpload.js";
import { createFolder } from "../../core/files/CreateFolder.js";
import { createUpload } from "../../core/files/CreateUpload.js";
import { grantAccess, revokeAccess } from "../../core/files/Permissions.js";
import { forEachFilesDialect } from "./support.js";
import { bytesOf, driveCounters, filesRuntime, putThroughGrant, sha256, uploadFile, uploadParts, workspaceWithDrive } from "./support.js";

const bytes = bytesOf("The quick brown fox jumps over the lazy dog, twice over.");

t.test("a multi-part upload completes into one quarantined version whose size and SHA-256 are the stored bytes'", (t) =>
  forEachFilesDialect(t, "complete", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "fox.txt", bytes });
    t.ok(session.parts.length > 1, "several parts");
    const version = await env.run(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }));
    t.match(version, { number: 1, sizeBytes: bytes.length, sha256: sha256(bytes), status: "quarantined", isCurrent: false });
    const stored = await env.run(env.store.stat(version.objectKey));
    t.match(stored, { size: bytes.length, sha256: sha256(bytes) }, "the assembled object holds the whole file");
    const node = await db.db.selectFrom("fs_nodes").selectAll().where("id", "=", version.nodeId).executeTakeFirstOrThrow();
    t.match(node, { name: "fox.txt", kind: "file", current_version_id: null }, "the file exists, with no current version before the scan");
    const outbox = await db.db.selectFrom("outbox").select(["type", "event"]).where("type", "=", "UploadFinalized").execute();
    t.equal(outbox.length, 1, "UploadFinalized once");
    const event = typeof outbox[0]!.event === "string" ? JSON.parse(outbox[0]!.event) : outbox[0]!.event;
    t.match(event, { aggregate_id: version.id, tenant_id: "ws1", data: { version_id: version.id, sha256: sha256(bytes) } }, "for the version");
    const jobs = await db.db.selectFrom("jobs").select(["kind", "key"]).where("kind", "=", "files.version_scan").execute();
    t.same(jobs, [{ kind: "files.version_scan", key: version.id }], "the scan is queued, keyed by the version");
  }),
);

t.test("completion is keyed by session and checksum: a retry answers the same version; another checksum is 409", (t) =>
  forEachFilesDialect(t, "retry", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "fox.txt", bytes });
    const complete = (sha: string) => env.attempt(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha }));
    const first = await complete(sha256(bytes));
    const again = await complete(sha256(bytes));
    t.ok(first.ok && again.ok && first.value.id === again.value.id, "the same version both times");
    t.match(await complete(sha256("other")), { ok: false, error: { code: "upload_completed", category: "conflict" } }, "another checksum is 409");
    const versions = await db.db.selectFrom("fs_file_versions").select("id").execute();
    t.equal(versions.length, 1, "one version");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: bytes.length, reserved: 0 }, "used counted once");
  }),
);

t.test("parallel completes of one session make exactly one version [postgres races, sqlite serializes]", (t) =>
  forEachFilesDialect(t, "parallel completes", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "fox.txt", bytes });
    const results = await Promise.all(
      Array.from({ length: 5 }, () => env.attempt(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }))),
    );
    t.ok(results.every((r) => r.ok), "every complete answers the version");
    t.equal(new Set(results.map((r) => (r.ok ? r.value.id : ""))).size, 1, "the same version");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: bytes.length, reserved: 0 });
  }),
);

t.test("a complete before every part is stored is 409 upload_incomplete and the session stays open", (t) =>
  forEachFilesDialect(t, "incomplete", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await env.run(
      createUpload({ userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", sizeBytes: 10, sha256: sha256("0123456789"), contentType: "text/plain", nodeId: null, partSha256: null }),
    );
    const r = await env.attempt(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256("0123456789") }));
    t.match(r, { ok: false, error: { code: "upload_incomplete", missingParts: [1] } });
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 10 }, "still reserved");
  }),
);

t.test("a complete whose checksum differs from the declared one is 422 checksum_mismatch and publishes nothing", (t) =>
  forEachFilesDialect(t, "checksum", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "fox.txt", bytes });
    const r = await env.attempt(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256("not these bytes") }));
    t.match(r, { ok: false, error: { code: "checksum_mismatch", category: "unprocessable" } });
    t.equal((await db.db.selectFrom("fs_file_versions").select("id").execute()).length, 0, "no version");
  }),
);

t.test("a stored object that does not match the declaration fails the upload: 422 and the reservation is released once", (t) =>
  forEachFilesDialect(t, "stored mismatch", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    // Declared parts whose checksums describe other bytes than the whole the client declared.
    const other = bytesOf("x".repeat(bytes.length));
    const session = await env.run(
      createUpload({
        userId: "ann",
        workspaceId: "ws1",
        parentId: root,
        name: "fox.txt",
        sizeBytes: bytes.length,
        sha256: sha256(bytes),
        contentType: "application/octet-stream",
        nodeId: null,
        partSha256: Array.from({ length: session_parts(bytes.length) }, (_, i) => sha256(other.subarray(i * 16, (i + 1) * 16))),
      }),
    );
    const { putThroughGrant } = await import("./support.js");
    for (const g of session.parts) await putThroughGrant(env.store, g, other.subarray((g.partNumber - 1) * 16, g.partNumber * 16));
    const r = await env.attempt(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }));
    t.match(r, { ok: false, error: { code: "checksum_mismatch" } });
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "released");
    const again = await env.attempt(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }));
    t.match(again, { ok: false, error: { code: "upload_not_open" } }, "a failed session cannot complete later");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "released exactly once");
    t.equal(await env.run(env.store.stat(`files/ws1/uploads/${session.id}/part-1`)), null, "its objects are deleted");
  }),
);

const session_parts = (size: number): number => Math.ceil(size / 16);

t.test("a name taken meanwhile makes the complete 409 name_taken; nothing is published and the session stays open", (t) =>
  forEachFilesDialect(t, "name taken meanwhile", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "report", bytes });
    await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "report" }));
    const r = await env.attempt(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }));
    t.match(r, { ok: false, error: { code: "name_taken", category: "conflict" } });
    t.equal((await db.db.selectFrom("fs_file_versions").select("id").execute()).length, 0, "no version");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: bytes.length }, "still reserved (abort or expiry releases it)");
  }),
);

t.test("a new version of an existing file gets the next number", (t) =>
  forEachFilesDialect(t, "new version", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("one") });
    const v2 = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("two!"), nodeId: v1.nodeId });
    t.match(v2, { nodeId: v1.nodeId, number: 2 });
  }),
);

t.test("only the session's creator may complete it; another user gets 404", (t) =>
  forEachFilesDialect(t, "session owner", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes });
    const r = await env.attempt(completeUpload({ userId: "ben", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }));
    t.match(r, { ok: false, error: { _tag: "NotFound" } });
  }),
);

t.test("part objects the removal after commit failed to delete are removed by the job the commit scheduled (completion and abort)", (t) =>
  forEachFilesDialect(t, "upload objects removed durably", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "adm", ["ann"]);
    const failing: ObjectStore = { ...env.store, remove: () => Effect.dieMessage("object store unavailable") };
    const partKeys = async (sessionId: string) =>
      (await db.db.selectFrom("fs_upload_parts").select("object_key").where("session_id", "=", sessionId).execute()).map((r) => String(r.object_key));
    const stored = async (keys: ReadonlyArray<string>) => (await Promise.all(keys.map((key) => env.run(env.store.stat(key))))).filter((o) => o !== null).length;
    const removalJobs = async () => db.db.selectFrom("jobs").selectAll().where("kind", "=", objectRemovalJob.kind).orderBy("key").execute();
    const runRemovals = async () => {
      for (const job of await removalJobs()) {
        const payload = typeof job.payload === "string" ? JSON.parse(job.payload) : job.payload;
        await env.run(objectRemovalJob.run(runningJob({ kind: objectRemovalJob.kind, key: job.key, payload })));
      }
    };

    const bytes = bytesOf("forty bytes of content in three parts..");
    const completed = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "done.txt", bytes });
    const completedParts = await partKeys(completed.id);
    t.equal(completedParts.length, 3);
    await env.run(Effect.provideService(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: completed.id, sha256: sha256(bytes) }), ObjectStore, failing));
    t.equal(await stored(completedParts), 3, "the completion's removal failed: the parts are still stored");

    const aborted = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "gone.txt", bytes });
    const abortedParts = await partKeys(aborted.id);
    await env.run(Effect.provideService(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: aborted.id }), ObjectStore, failing));
    t.equal(await stored(abortedParts), 3, "the abort's removal failed: the parts are still stored");

    t.same(
      (await removalJobs()).map((j) => j.key),
      [`upload:${completed.id}:0`, `upload:${completed.id}:after-grants:0`, `upload:${aborted.id}:0`, `upload:${aborted.id}:after-grants:0`].sort(),
      "each commit scheduled its removal, and another for when the session's grants expired",
    );
    await runRemovals();
    t.equal(await stored([...completedParts, ...abortedParts]), 0, "the jobs removed them");
  }),
);

/**
 * Spec (States): an upload session that "expires without completion" is "removed" (unclaimed
 * objects deleted, quota released). A complete that arrives two days after the session's expiry,
 * before the expiry job ran, is refused 409 upload_not_open: no version, no node, nothing used.
 */
t.test("a complete after the session expired is 409 upload_not_open and reserves or publishes nothing", (t) =>
  forEachFilesDialect(t, "expired complete", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "late.txt", bytes });
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: bytes.length }, "reserved while open");
    const twoDaysAfterExpiry = clockAhead(testSettings.uploadTtlMs + 2 * 24 * 3600_000);
    const late = await env.attempt(Effect.withClock(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }), twoDaysAfterExpiry));
    t.match(late, { ok: false, error: { _tag: "UploadNotOpen", code: "upload_not_open", status: "expired" } }, "refused");
    t.equal((await db.db.selectFrom("fs_file_versions").select("id").execute()).length, 0, "no version");
    t.equal((await db.db.selectFrom("fs_nodes").select("id").where("name", "=", "late.txt").execute()).length, 0, "no node");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "nothing used, the reservation released");
    const row = await db.db.selectFrom("fs_upload_sessions").select("status").where("id", "=", session.id).executeTakeFirstOrThrow();
    t.equal(row.status, "expired", "the session is removed (expired), as the expiry job would");
    t.match(await env.attempt(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) })), { ok: false, error: { code: "upload_not_open" } }, "and stays refused");
  }),
);

/**
 * Spec (Limits): "Unfinished uploads are bounded by their reservation"; (States) a settled
 * session's "unclaimed objects deleted". The grant handler refuses a settled session's part grant
 * (http-grant-checks.test.ts), but bytes can still arrive after an abort — a PUT already streaming
 * when the session settled, or bytes put into the store past the handler, as here — and the drive
 * no longer counts them: the abort schedules a removal that runs once every grant of the session
 * has expired, and that removal deletes what was stored meanwhile.
 */
t.test("bytes PUT with an aborted session's old grant are not kept past the grant's life", (t) =>
  forEachFilesDialect(t, "grant after abort", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "gone.txt", bytes });
    const keys = (await db.db.selectFrom("fs_upload_parts").select("object_key").where("session_id", "=", session.id).execute()).map((r) => String(r.object_key));
    await env.run(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }));
    const stored = async () => (await Promise.all(keys.map((key) => env.run(env.store.stat(key))))).filter((o) => o !== null).length;
    t.equal(await stored(), 0, "the abort removed the parts");

    // Bytes arrive under the old grants (straight into the store: the handler would refuse them now).
    for (const grant of session.parts) {
      await putThroughGrant(env.store, grant, bytes.subarray((grant.partNumber - 1) * session.partSizeBytes, grant.partNumber * session.partSizeBytes));
    }
    t.equal(await stored(), keys.length, "bytes stored under the old grants");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "bytes the drive does not count");

    const grantsExpireAt = Math.max(...session.parts.map((p) => new Date(p.expiresAt).getTime()));
    const jobs = await db.db.selectFrom("jobs").selectAll().where("kind", "=", objectRemovalJob.kind).execute();
    const late = jobs.filter((j) => new Date(j.run_at as string | Date).getTime() >= grantsExpireAt);
    t.ok(late.length > 0, "a removal is due once every grant of the session has expired");
    for (const job of late) {
      const payload = typeof job.payload === "string" ? JSON.parse(job.payload) : job.payload;
      await env.run(objectRemovalJob.run(runningJob({ kind: objectRemovalJob.kind, key: job.key, payload })));
    }
    t.equal(await stored(), 0, "what the old grants stored is deleted");
  }),
);

/*
 * Spec (States): "none | POST /v1/uploads | caller can edit the parent folder | upload session
 * created"; (What the service does) "Namespace, quota reservation and ACL are transactional";
 * (Authentication 2) "ACL checks include ancestors and current tenant membership". The file node
 * appears at completion, so completing checks again, under the drive lock, that the session's
 * owner may still create in the folder (or edit the file, for a new version): an editor whose
 * grant was revoked after opening the session lands nothing there; the session stays open (its
 * expiry releases it) and is completed once the access is back.
 */
t.test("completing needs the access that opening needed, still: a revoked editor's open session lands no file or version", (t) =>
  forEachFilesDialect(t, "complete rechecks access", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann", ["ben"]);
    const folder = await env.run(createFolder({ userId: "ann", workspaceId: "ws1", parentId: root, name: "team" }));
    const existing = await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: folder.id, name: "plan.txt", bytes: bytesOf("v1") });
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, granteeId: "ben", role: "editor" }));
    const newFile = await uploadParts(env, { userId: "ben", workspaceId: "ws1", parentId: folder.id, name: "late.txt", bytes });
    const newVersion = await uploadParts(env, { userId: "ben", workspaceId: "ws1", parentId: folder.id, name: "plan.txt", bytes, nodeId: existing.nodeId });
    await env.run(revokeAccess({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, granteeId: "ben" }));

    const complete = (uploadId: string) => env.attempt(completeUpload({ userId: "ben", workspaceId: "ws1", uploadId, sha256: sha256(bytes) }));
    t.match(await complete(newFile.id), { ok: false, error: { _tag: "NotFound" } }, "no new file in a folder ben no longer sees");
    t.match(await complete(newVersion.id), { ok: false, error: { _tag: "NotFound" } }, "no new version of a file ben no longer sees");
    const names = (await db.db.selectFrom("fs_nodes").select("name").where("parent_id", "=", folder.id).execute()).map((r) => r.name);
    t.same(names, ["plan.txt"], "nothing landed");
    t.equal((await db.db.selectFrom("fs_file_versions").select("id").where("node_id", "=", existing.nodeId).execute()).length, 1, "no version added");
    const statuses = await db.db.selectFrom("fs_upload_sessions").select("status").where("id", "in", [newFile.id, newVersion.id]).execute();
    t.same(statuses.map((r) => r.status), ["open", "open"], "the sessions stay open (their expiry releases them)");

    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, granteeId: "ben", role: "viewer" }));
    t.match(await complete(newFile.id), { ok: false, error: { _tag: "Forbidden" } }, "a viewer sees the folder but may not create in it: 403");
    await env.run(grantAccess({ userId: "ann", workspaceId: "ws1", nodeId: folder.id, granteeId: "ben", role: "editor" }));
    t.match(await complete(newFile.id), { ok: true, value: { status: "quarantined" } }, "an editor again completes it");
  }),
);

/*
 * Spec (Endpoints, rule 2): "Upload completion is keyed by session and checksum": a second
 * complete of a session answers the version the first made. Here the second complete is already
 * assembling the parts of a multi-part upload when the first commits and removes them (its read
 * of a part runs the first complete to the end): it answers the same version, not a 500.
 */
t.test("a complete whose parts were removed while it assembled them, by a complete that won, answers the same version", (t) =>
  forEachFilesDialect(t, "complete loses while assembling", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "fox.txt", bytes });
    t.ok(session.parts.length > 1, "a multi-part upload");
    const complete = completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) });
    let first: unknown = null;
    const losing = Effect.gen(function* () {
      const store = yield* ObjectStore;
      const context = yield* Effect.context<FilesServices>();
      let ran = false;
      const winFirst = Effect.suspend(() => {
        if (ran) return Effect.void;
        ran = true;
        return Effect.map(complete, (version) => void (first = version)).pipe(Effect.provide(context));
      });
      return yield* Effect.provideService(complete, ObjectStore, { ...store, read: (key: string) => Effect.zipRight(winFirst.pipe(Effect.orDie), store.read(key)) });
    });
    const second = await env.attempt(losing);
    t.match(first, { status: "quarantined" }, "the first complete made the version");
    t.match(second, { ok: true, value: { id: (first as { id?: string } | null)?.id } }, "the second answers the same version");
    t.equal((await db.db.selectFrom("fs_file_versions").select("id").execute()).length, 1, "one version");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: bytes.length, reserved: 0 }, "used counted once");
    const key = (await db.db.selectFrom("fs_file_versions").select("object_key").executeTakeFirstOrThrow()).object_key;
    t.match(await env.run(env.store.stat(String(key))), { size: bytes.length, sha256: sha256(bytes) }, "the version's object keeps its bytes");
  }),
);
