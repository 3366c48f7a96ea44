/**
 * Orphan multipart cleanup (spec: background work "orphan multipart cleanup"): a native multipart
 * upload begun in the store by a process that stopped before its session's row was written is
 * aborted by the daily files job once it is a day old; an upload an open session holds, a young
 * one, and a key that is not a session's object are left alone; an upload a settled session left
 * behind (its aborts failed) is aborted too; each abort is audited; the store's listing is paged.
 * Before that backstop, a cancelled or expired session's multipart upload is aborted after commit
 * and by its keyed job, retried while the store fails.
 * The store here is the local store with an in-memory native multipart (the local store has none).
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { abortUpload } from "../../core/files/AbortUpload.js";
import { expireUpload } from "../../core/files/ExpireUpload.js";
import { filesJobs } from "../../core/files/Jobs.js";
import { uploadStoreAbortJob } from "../../core/files/UploadStoreAbort.js";
import { createUpload } from "../../core/files/CreateUpload.js";
import { assembledKey } from "../../core/files/ObjectKeys.js";
import { cleanOrphanMultipartUploads, orphanMultipartActor } from "../../core/files/OrphanMultipartCleanup.js";
import { ObjectStore, type IncompleteMultipartUpload, type MultipartUploads } from "../../ports/ObjectStore.js";
import { at } from "../worker/fixtures.js";
import { driveCounters, filesRuntime, forEachFilesDialect, testSettings, workspaceWithDrive, type FilesEnv } from "./support.js";

const hourMs = 3_600_000;

/**
 * The local store of `env` with native multipart held in memory; `uploads` is what the store
 * holds. Its first `failingAborts` aborts fail (the store unavailable).
 */
const withMultipart = (env: FilesEnv, clock: { now: number }, failingAborts = 0) => {
  const uploads = new Map<string, IncompleteMultipartUpload>();
  let abortsLeftToFail = failingAborts;
  const multipart: MultipartUploads = {
    begin: (req) =>
      Effect.sync(() => {
        const uploadId = randomUUID();
        uploads.set(uploadId, { key: req.key, uploadId, initiatedAt: new Date(clock.now) });
        return uploadId;
      }),
    grantPart: (req) => Effect.succeed({ url: `https://store.invalid/${req.key}?uploadId=${req.uploadId}&partNumber=${req.partNumber}`, method: "PUT" as const, headers: {}, expiresAt: new Date(clock.now + req.ttlMs) }),
    complete: () => Effect.dieMessage("not used here"),
    abort: (req) => (abortsLeftToFail-- > 0 ? Effect.dieMessage("object store unavailable") : Effect.sync(() => void uploads.delete(req.uploadId))),
    listIncomplete: (req) =>
      Effect.sync(() => {
        const order = (u: { key: string; uploadId: string }) => `${u.key}\u0000${u.uploadId}`;
        const after = req.after === null ? "" : order(req.after);
        const listed = [...uploads.values()].filter((u) => u.key.startsWith(req.prefix) && order(u) > after).sort((a, b) => (order(a) < order(b) ? -1 : 1));
        const page = listed.slice(0, req.limit);
        const last = page[page.length - 1];
        return {
          uploads: page.filter((u) => u.initiatedAt.getTime() < req.startedBefore.getTime()),
          next: listed.length > req.limit && last !== undefined ? { key: last.key, uploadId: last.uploadId } : null,
        };
      }),
  };
  const store = { ...env.store, multipart };
  const run = <A, E>(effect: Effect.Effect<A, E, any>) => env.run(at(clock.now)(Effect.provideService(effect, ObjectStore, store)) as Effect.Effect<A, E, never>);
  /** One pass of the job runner over the module's jobs, at the clock's time, on this store. */
  const runJobs = () => env.runtime.runPromise(at(clock.now)(Effect.provideService(runJobsOnce(filesJobs, { workerId: "multipart-test" }), ObjectStore, store)));
  return { uploads, multipart, run, runJobs };
};

t.test("a multipart upload no open session holds is aborted by the daily job once a day old; held, young and foreign uploads stay", (t) =>
  forEachFilesDialect(t, "orphan multipart cleanup", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const t0 = Date.now();
    const clock = { now: t0 - 30 * hourMs };
    const store = withMultipart(env, clock);
    const begin = (key: string) => store.run(store.multipart.begin({ key, contentType: "text/plain" }));
    const newUpload = (name: string) =>
      store.run(createUpload({ userId: "ann", workspaceId: "ws1", parentId: root, name, sizeBytes: 40, sha256: "a".repeat(64), contentType: "text/plain", nodeId: null, partSha256: ["b".repeat(64), "c".repeat(64), "d".repeat(64)] }));

    // 30 hours ago: an open session's upload, a session aborted whose store abort failed (here:
    // another upload of its key), and an upload begun by a process that stopped before writing its session.
    const open = await newUpload("open.bin");
    const settled = await newUpload("settled.bin");
    await store.run(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: settled.id }));
    t.notOk([...store.uploads.values()].some((u) => u.key === assembledKey("ws1", settled.id)), "DELETE aborted the session's upload in the store at once");
    const leftBySettled = await begin(assembledKey("ws1", settled.id));
    const orphan = await begin(assembledKey("ws1", randomUUID()));
    const foreign = await begin("files/ws1/exports/not-a-session/object");
    // An hour ago: an orphan too young to tell from a creation in progress.
    clock.now = t0 - hourMs;
    const young = await begin(assembledKey("ws1", randomUUID()));
    const openUploadId = [...store.uploads.values()].find((u) => u.key === assembledKey("ws1", open.id))!.uploadId;

    clock.now = t0;
    const aborted: Array<string> = [];
    let after: { key: string; upload_id: string } | null = null;
    let pages = 0;
    do {
      const page: { aborted: ReadonlyArray<IncompleteMultipartUpload>; next: { key: string; upload_id: string } | null } = await store.run(cleanOrphanMultipartUploads({ day: "2026-01-01", after }, 2));
      aborted.push(...page.aborted.map((u) => u.uploadId));
      after = page.next;
      pages++;
    } while (after !== null && pages < 10);
    t.ok(pages >= 3, "the listing is read page by page");
    t.same(aborted.sort(), [leftBySettled, orphan].sort(), "the orphan and the settled session's leftover are aborted");
    t.same([...store.uploads.keys()].sort(), [openUploadId, foreign, young].sort(), "the open session's, the foreign and the young upload stay");
    const audit = await db.db.selectFrom("fs_audit").select(["actor_id", "action", "data"]).where("action", "=", "upload.orphan_aborted").execute();
    t.equal(audit.length, 2, "each abort is audited");
    t.ok(audit.every((a) => a.actor_id === orphanMultipartActor));

    const again = await store.run(cleanOrphanMultipartUploads({ day: "2026-01-02", after: null }, 100));
    t.same(again.aborted, [], "a rerun aborts nothing more");
  }),
);

/**
 * Spec (States): a session that ends without completion is "removed", its "unclaimed objects
 * deleted". A native multipart upload is deleted by aborting it in the store, and that call may
 * fail: DELETE /v1/uploads/:id and the expiry abort it right after commit and also schedule the
 * keyed job files.upload_store_abort in their settlement's transaction, as the member removal
 * does, and the runner retries it until the store answers.
 */
t.test("a cancelled or expired multipart upload is aborted in the store by a keyed job, retried until the store answers", (t) =>
  forEachFilesDialect(t, "multipart store abort job", async (t, db) => {
    const env = filesRuntime(t, db);
    const root = await workspaceWithDrive(env, "ws1", "ann");
    const clock = { now: Date.now() };
    // The store fails the two aborts made right after commit, and one job's first attempt.
    const store = withMultipart(env, clock, 3);
    const newUpload = (name: string) =>
      store.run(createUpload({ userId: "ann", workspaceId: "ws1", parentId: root, name, sizeBytes: 40, sha256: "a".repeat(64), contentType: "text/plain", nodeId: null, partSha256: ["b".repeat(64), "c".repeat(64), "d".repeat(64)] }));
    const cancelled = await newUpload("cancelled.bin");
    const expiring = await newUpload("expiring.bin");
    t.equal(store.uploads.size, 2, "each session began a multipart upload in the store");

    const answered = await store.run(abortUpload({ userId: "ann", workspaceId: "ws1", uploadId: cancelled.id })).then(
      () => "answered",
      (error: unknown) => `failed: ${String(error)}`,
    );
    t.equal(answered, "answered", "DELETE /v1/uploads/:id answers without waiting on the store");
    clock.now += testSettings.uploadTtlMs + 60_000;
    t.equal(await store.run(expireUpload("ws1", expiring.id)), 40, "the expiry settles the other session");
    t.same(await driveCounters(env, "ws1"), { quota: 10_000, used: 0, reserved: 0 }, "both reservations released");
    t.equal(store.uploads.size, 2, "the store failed both aborts made after commit");

    const storeAborts = async () =>
      (await db.db.selectFrom("jobs").select(["key", "status", "attempts"]).where("kind", "=", uploadStoreAbortJob.kind).orderBy("key").execute()).map((j) => ({
        key: j.key,
        status: j.status,
        attempts: Number(j.attempts),
      }));
    t.same(
      (await storeAborts()).map((j) => j.key),
      [`upload:${cancelled.id}`, `upload:${expiring.id}`].sort(),
      "each settlement scheduled the store abort of its session, keyed by session",
    );
    await store.runJobs();
    t.same(
      (await storeAborts()).map((j) => `${j.status}/${j.attempts}`).sort(),
      ["done/1", "pending/1"],
      "the store failed one abort: that job waits for its retry, the other is done",
    );
    t.equal(store.uploads.size, 1, "one multipart upload is still in the store");
    clock.now += 3_600_000;
    await store.runJobs();
    t.same(
      (await storeAborts()).map((j) => `${j.status}/${j.attempts}`).sort(),
      ["done/1", "done/2"],
      "the retry aborted it",
    );
    t.equal(store.uploads.size, 0, "neither session's multipart upload is left in the store");
  }),
);
