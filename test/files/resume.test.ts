/**
 * Resumable uploads, version history and quota reconciliation: a client that lost its connection
 * learns the stored parts and gets fresh grants for the missing ones only; versions list newest
 * first with keyset cursors; the reconciliation job recomputes usage and reports drift.
 */
import t from "tap";
import { Effect } from "effect";
import { clockAhead } from "../support/clockAhead.js";
import { sql } from "kysely";
import { completeUpload } from "../../core/files/CompleteUpload.js";
import { reconcileQuota } from "../../core/files/ReconcileQuota.js";
import { restoreVersion } from "../../core/files/RestoreVersion.js";
import { getUpload } from "../../core/files/UploadQueries.js";
import { reportUploadPart } from "../../core/files/ReportUploadPart.js";
import { listVersions } from "../../core/files/VersionQueries.js";
import { createUpload } from "../../core/files/CreateUpload.js";
import { forEachFilesDialect } from "./support.js";
import { bytesOf, driveCounters, filesRuntime, partChecksums, publishFile, putThroughGrant, sha256, testSettings, uploadParts, workspaceWithDrive } from "./support.js";

t.test("resume lists the received parts and grants only the missing ones; the upload then completes", (t) =>
  forEachFilesDialect(t, "resume", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const bytes = bytesOf("0123456789abcdef0123456789abcdef0123"); // three parts of 16
    const session = await env.run(
      createUpload({ userId: "ann", workspaceId: "ws1", parentId: root, name: "r.bin", sizeBytes: bytes.length, sha256: sha256(bytes), contentType: "application/octet-stream", nodeId: null, partSha256: partChecksums(bytes, 16) }),
    );
    t.equal(session.parts.length, 3);
    await putThroughGrant(env.store, session.parts[0]!, bytes.subarray(0, 16));
    await putThroughGrant(env.store, session.parts[2]!, bytes.subarray(32));
    const resumed = await env.run(getUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }));
    t.same(resumed.receivedParts, [1, 3], "parts 1 and 3 are stored");
    t.same(resumed.parts.map((p) => p.partNumber), [2], "a fresh grant for part 2 only");
    await putThroughGrant(env.store, resumed.parts[0]!, bytes.subarray(16, 32));
    const version = await env.run(completeUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id, sha256: sha256(bytes) }));
    t.match(version, { sizeBytes: bytes.length, sha256: sha256(bytes) });
    t.match(await env.attempt(getUpload({ userId: "ben", workspaceId: "ws1", uploadId: session.id })), { ok: false, error: { _tag: "NotFound" } }, "only its owner sees a session");
  }),
);

t.test("versions list newest first with a keyset cursor", (t) =>
  forEachFilesDialect(t, "versions", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("1") });
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("22"), nodeId: v1.nodeId });
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("333"), nodeId: v1.nodeId });
    const first = await env.run(listVersions({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, cursor: null, limit: 2 }));
    t.same(first.data.map((v) => v.number), [3, 2]);
    const second = await env.run(listVersions({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, cursor: first.next_cursor, limit: 2 }));
    t.same(second.data.map((v) => v.number), [1]);
    t.equal(second.next_cursor, null);
    t.same(first.data.filter((v) => v.isCurrent).map((v) => v.number), [3], "the newest clean version is current");
  }),
);

t.test("quota reconciliation recomputes used and reserved bytes and reports drift", (t) =>
  forEachFilesDialect(t, "reconciliation", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("hello") });
    await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "b.txt", bytes: bytesOf("open!!") });
    t.match(await env.run(reconcileQuota("ws1")), { recomputedUsedBytes: 5, recomputedReservedBytes: 6, drift: false }, "the counters agree");
    await sql`UPDATE fs_drives SET used_bytes = used_bytes + 7 WHERE workspace_id = 'ws1'`.execute(db.db);
    t.match(await env.run(reconcileQuota("ws1")), { countedUsedBytes: 12, recomputedUsedBytes: 5, drift: true }, "a drift is reported");
  }),
);

t.test("restoring an old version makes it current again as a new version, with no new quota", (t) =>
  forEachFilesDialect(t, "restore version", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const v1 = await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("first") });
    await publishFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("second"), nodeId: v1.nodeId });
    const v3 = await env.run(restoreVersion({ userId: "ann", workspaceId: "ws1", nodeId: v1.nodeId, versionId: v1.id }));
    t.match(v3, { number: 3, status: "published", isCurrent: true, restoredFromId: v1.id, sha256: v1.sha256 });
    const node = await db.db.selectFrom("fs_nodes").select(["current_version_id", "sha256"]).where("id", "=", v1.nodeId).executeTakeFirstOrThrow();
    t.match(node, { current_version_id: v3.id, sha256: v1.sha256 });
    t.match(await env.run(reconcileQuota("ws1")), { recomputedUsedBytes: 11, countedUsedBytes: 11, drift: false }, "the shared object is counted once");
    t.equal((await db.db.selectFrom("outbox").select("id").where("type", "=", "FileVersionPublished").execute()).length, 3, "published: v1, v2 and the restored v3");
  }),
);

/*
 * Spec (States): "upload session | session or object prefix expires without completion | removed |
 * unclaimed objects deleted, quota released". Resuming a session past its expiry, before the
 * expiry job ran, answers it expired — settled as the job would (objects removed, reservation
 * released once) — with no grants, never as an open session with fresh part grants.
 */
t.test("resuming a session past its expiry answers it expired, without grants, and releases its reservation", (t) =>
  forEachFilesDialect(t, "resume after expiry", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const bytes = bytesOf("some bytes that span a few parts of sixteen");
    const session = await env.run(
      createUpload({ userId: "ann", workspaceId: "ws1", parentId: root, name: "late.bin", sizeBytes: bytes.length, sha256: sha256(bytes), contentType: "application/octet-stream", nodeId: null, partSha256: partChecksums(bytes, 16) }),
    );
    await putThroughGrant(env.store, session.parts[0]!, bytes.subarray(0, 16));
    t.match(await env.run(getUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id })), { status: "open", receivedParts: [1] }, "open before its expiry");
    const afterExpiry = clockAhead(testSettings.uploadTtlMs + 60_000);
    const late = await env.run(Effect.withClock(getUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }), afterExpiry));
    t.match(late, { status: "expired", parts: [] }, "expired, with no part grants");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "the reservation released");
    t.equal((await db.db.selectFrom("fs_upload_sessions").select("status").where("id", "=", session.id).executeTakeFirstOrThrow()).status, "expired", "stored as expired");
  }),
);

/*
 * The same rule for a part report (`PUT /v1/uploads/:id/parts/:n`): past the session's expiry it
 * is refused as for any settled session (409 upload_not_open, status expired), and the session is
 * settled as the expiry job would.
 */
t.test("reporting a part of a session past its expiry is 409 upload_not_open and settles it as expired", (t) =>
  forEachFilesDialect(t, "report after expiry", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const bytes = bytesOf("some bytes that span a few parts of sixteen");
    const session = await env.run(
      createUpload({ userId: "ann", workspaceId: "ws1", parentId: root, name: "late.bin", sizeBytes: bytes.length, sha256: sha256(bytes), contentType: "application/octet-stream", nodeId: null, partSha256: partChecksums(bytes, 16) }),
    );
    const afterExpiry = clockAhead(testSettings.uploadTtlMs + 60_000);
    const late = await env.attempt(Effect.withClock(reportUploadPart({ userId: "ann", workspaceId: "ws1", uploadId: session.id, partNumber: 1, etag: '"abc"' }), afterExpiry));
    t.match(late, { ok: false, error: { _tag: "UploadNotOpen", status: "expired" } }, "refused as expired");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "the reservation released");
    t.equal((await db.db.selectFrom("fs_upload_sessions").select("status").where("id", "=", session.id).executeTakeFirstOrThrow()).status, "expired", "stored as expired");
  }),
);
