/**
 * Personal data retention of the audit export (conventions: personal data is kept no longer
 * than its purpose needs; spec should-have "audit export"): the export holds every actor id and
 * reason of the workspace's audit trail. A finished export is downloadable for
 * `FilesSettings.auditExportRetentionMs` (7 days) after it completed; then its requester gets no
 * grant any more and the object is removed from the store by a job scheduled in the transaction
 * that finished the export.
 */
import { Chunk, Effect, Stream } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { getAuditExport, requestAuditExport } from "../../core/files/AuditExports.js";
import { runAuditExport } from "../../core/files/AuditExportJob.js";
import { filesJobs } from "../../core/files/Jobs.js";
import { defaultFilesSettings } from "../../ports/files/FilesSettings.js";
import { clockAhead } from "../support/clockAhead.js";
import { filesRuntime, forEachFilesDialect, workspaceWithDrive } from "./support.js";

const retentionMs = defaultFilesSettings.auditExportRetentionMs;

t.test("a finished audit export is downloadable for its retention after completion, then no grant is issued and its object is removed", (t) =>
  forEachFilesDialect(t, "audit export retention", async (t, db) => {
    const env = filesRuntime(t, db);
    await workspaceWithDrive(env, "ws1", "adm");
    t.equal(retentionMs, 7 * 86_400_000, "7 days by default");
    const requested = await env.run(requestAuditExport({ userId: "adm", workspaceId: "ws1" }));
    t.equal(await env.run(runAuditExport("ws1", requested.id)), "done");
    const key = `files/ws1/audit-exports/${requested.id}.jsonl`;
    const done = await env.run(getAuditExport({ userId: "adm", workspaceId: "ws1", exportId: requested.id }));
    t.not(done.download, null, "downloadable once done");
    const completedAt = done.export.completedAt!.getTime();

    const removal = await db.db.selectFrom("jobs").select(["kind", "run_at"]).where("key", "=", `audit-export:${requested.id}:retention`).execute();
    t.equal(removal.length, 1, "the object's removal is scheduled with the export's completion");
    t.equal(removal[0]?.kind, "files.object_removal");
    t.equal(db.features.timeFromDb(removal[0]?.run_at).getTime(), completedAt + retentionMs, "at the end of its retention");

    const justBefore = await env.run(Effect.withClock(getAuditExport({ userId: "adm", workspaceId: "ws1", exportId: requested.id }), clockAhead(retentionMs - 60_000)));
    t.not(justBefore.download, null, "still downloadable just before");
    const after = await env.run(Effect.withClock(getAuditExport({ userId: "adm", workspaceId: "ws1", exportId: requested.id }), clockAhead(retentionMs + 60_000)));
    t.match(after, { export: { status: "done" }, download: null }, "no grant once the retention has passed");

    t.not(await env.run(env.store.stat(key)), null, "the object was there");
    await env.runtime.runPromise(Effect.withClock(runJobsOnce(filesJobs, { workerId: "retention-test" }), clockAhead(retentionMs + 60_000)));
    t.equal(await env.run(env.store.stat(key)), null, "the object is gone from the store");
  }),
);
