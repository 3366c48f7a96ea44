/**
 * Spec rule 1 (quota): reserved + used never exceed the quota, also as a database constraint;
 * parallel upload creations never oversubscribe it; a completed upload turns its reservation into
 * used bytes; abort, expiry and a failed completion release it exactly once.
 */
import t from "tap";
import { nextQuotaSweepAt, sweepQuotas } from "../../core/files/QuotaSweep.js";
import { sql } from "kysely";
import { abortUpload } from "../../core/files/AbortUpload.js";
import { createUpload } from "../../core/files/CreateUpload.js";
import { expireUpload } from "../../core/files/ExpireUpload.js";
import { setQuota } from "../../core/files/Drives.js";
import { forEachFilesDialect } from "./support.js";
import { bytesOf, driveCounters, filesRuntime, sha256, uploadFile, uploadParts, workspaceWithDrive } from "./support.js";

const newUpload = (root: string, size: number, name: string) => ({
  userId: "ann",
  workspaceId: "ws1",
  parentId: root,
  name,
  sizeBytes: size,
  sha256: sha256(bytesOf("x".repeat(size))),
  contentType: "text/plain",
  nodeId: null,
  partSha256: Array.from({ length: Math.ceil(size / 16) }, () => sha256("p")),
});

t.test("the database refuses used + reserved above the quota, and negative counters", (t) =>
  forEachFilesDialect(t, "quota CHECK", async (t, db) => {
    const env = filesRuntime(t, db);
    await workspaceWithDrive(env, "ws1", "ann");
    await t.rejects(sql`UPDATE fs_drives SET reserved_bytes = quota_bytes + 1 WHERE workspace_id = 'ws1'`.execute(db.db), "reserved above the quota is refused");
    await t.rejects(sql`UPDATE fs_drives SET used_bytes = quota_bytes, reserved_bytes = 1 WHERE workspace_id = 'ws1'`.execute(db.db), "used + reserved above the quota is refused");
    await t.rejects(sql`UPDATE fs_drives SET used_bytes = -1 WHERE workspace_id = 'ws1'`.execute(db.db), "negative used bytes are refused");
    await t.rejects(sql`UPDATE fs_drives SET reserved_bytes = -1 WHERE workspace_id = 'ws1'`.execute(db.db), "negative reserved bytes are refused");
  }),
);

t.test("20 parallel upload creations asking for twice the free space: exactly those that fit succeed, the rest 413, the counter is exact", (t) =>
  forEachFilesDialect(t, "quota race", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    await env.run(setQuota("ann", "ws1", 1000));
    const results = await Promise.all(Array.from({ length: 20 }, (_, i) => env.attempt(createUpload(newUpload(root, 100, `f${i}`)))));
    const ok = results.filter((r) => r.ok).length;
    const refused = results.filter((r) => !r.ok);
    t.equal(ok, 10, "exactly the ten uploads that fit are accepted");
    t.equal(refused.length, 10, "the other ten are refused");
    t.ok(refused.every((r) => !r.ok && r.error._tag === "FileQuotaExceeded" && r.error.code === "quota_exceeded" && r.error.category === "payload_too_large"), "each refusal is 413 quota_exceeded");
    t.same(await driveCounters(env, "ws1"), { quota: 1000, used: 0, reserved: 1000 }, "the reserved counter is exactly the accepted bytes");
    const open = await db.db.selectFrom("fs_upload_sessions").select(db.db.fn.countAll().as("n")).where("status", "=", "open").executeTakeFirstOrThrow();
    t.equal(Number(open.n), 10, "one open session per accepted creation");
  }),
);

t.test("a file above the size limit is 413 file_too_large and reserves nothing", (t) =>
  forEachFilesDialect(t, "size limit", async (t, db) => {
    const env = filesRuntime(t, db, { maxFileBytes: 100 });
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const r = await env.attempt(createUpload(newUpload(root, 101, "big")));
    t.match(r, { ok: false, error: { code: "file_too_large", category: "payload_too_large" } });
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 });
  }),
);

t.test("a completed upload converts its reservation into used bytes", (t) =>
  forEachFilesDialect(t, "complete converts", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const bytes = bytesOf("hello, files: forty bytes of content!!!");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes });
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: bytes.length }, "reserved while open");
    t.equal(session.parts.length, Math.ceil(bytes.length / 16), "one grant per part");
    await uploadFile(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "b.txt", bytes });
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: bytes.length, reserved: bytes.length }, "the completed one is used, the open one still reserved");
  }),
);

t.test("abort releases the reservation exactly once; a later expiry changes nothing", (t) =>
  forEachFilesDialect(t, "abort", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("abcdefghijklmnopqrstuvwxyz") });
    await env.run(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }));
    await env.run(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: session.id }));
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "released once, not twice");
    t.equal(await env.run(expireUpload("ws1", session.id)), null, "the expiry of an aborted session releases nothing");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 });
    t.equal(await env.run(env.store.stat(`files/ws1/uploads/${session.id}/part-1`)), null, "its part objects are deleted");
  }),
);

t.test("an expired session is removed: its objects deleted, its reservation released once", (t) =>
  forEachFilesDialect(t, "expiry", async (t, db) => {
    const env = filesRuntime(t, db, { uploadTtlMs: 300 });
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const session = await uploadParts(env, { userId: "ann", workspaceId: "ws1", parentId: root, name: "a.txt", bytes: bytesOf("0123456789") });
    t.equal(await env.run(expireUpload("ws1", session.id)), null, "not before its expiry");
    await new Promise((r) => setTimeout(r, 350));
    const [first, second] = await Promise.all([env.run(expireUpload("ws1", session.id)), env.run(expireUpload("ws1", session.id))]);
    t.same([first, second].sort(), [10, null], "two expiry runs at once release the bytes once");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 });
    t.equal(await env.run(env.store.stat(`files/ws1/uploads/${session.id}/part-1`)), null, "its part object is deleted");
    const jobs = await db.db.selectFrom("jobs").select(["kind", "key"]).where("kind", "=", "files.upload_expiry").execute();
    t.same(jobs.map((j) => j.key), [session.id], "the expiry job was scheduled with the session, keyed by it");
  }),
);

t.test("the daily quota sweep schedules one reconciliation per drive, page by page, then the next day's sweep", (t) =>
  forEachFilesDialect(t, "quota sweep", async (t, db) => {
    const env = filesRuntime(t, db);
    for (const ws of ["ws1", "ws2", "ws3"]) await workspaceWithDrive(env, ws, "ann");
    t.equal(await env.run(sweepQuotas({ day: "2030-01-01", after: null }, 2)), 2, "the first page");
    const keys = async (kind: string) => (await db.db.selectFrom("jobs").select("key").where("kind", "=", kind).orderBy("key").execute()).map((j) => j.key);
    t.same(await keys("files.quota_reconciliation"), ["ws1:2030-01-01", "ws2:2030-01-01"]);
    t.same(await keys("files.quota_sweep"), ["day-2030-01-01:after-ws2"], "a full page schedules the next page");
    t.equal(await env.run(sweepQuotas({ day: "2030-01-01", after: "ws2" }, 2)), 1, "the last page");
    await env.run(sweepQuotas({ day: "2030-01-01", after: null }, 2));
    t.same(await keys("files.quota_reconciliation"), ["ws1:2030-01-01", "ws2:2030-01-01", "ws3:2030-01-01"], "one per drive and day, however often a page runs");
    const next = new Date(nextQuotaSweepAt(Date.now()));
    t.ok((await keys("files.quota_sweep")).includes(`day-${next.toISOString().slice(0, 10)}`), "the last page schedules the next day's sweep");
    t.equal(next.getUTCHours(), 3, "at 03:00 UTC");
  }),
);
