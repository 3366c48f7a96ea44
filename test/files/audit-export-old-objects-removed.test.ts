/**
 * Audit exports finished before their retention was introduced (spec should-have "audit export";
 * conventions: personal data kept no longer than its purpose): no removal job was written when
 * they finished, so the daily maintenance run (the trash purge's first page) schedules the
 * removal of every done export's object past `FilesSettings.auditExportRetentionMs`, whatever its
 * age, once (recorded on the export, and held by the database); an export within its retention
 * keeps its object.
 */
import { Effect, Stream } from "effect";
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { requestAuditExport } from "../../core/files/AuditExports.js";
import { runAuditExport } from "../../core/files/AuditExportJob.js";
import { sweepExpiredAuditExports } from "../../core/files/AuditExportRetentionSweep.js";
import { filesJobs } from "../../core/files/Jobs.js";
import { sweepTrash } from "../../core/files/TrashPurgeSweep.js";
import { clockAhead } from "../support/clockAhead.js";
import { at } from "../worker/fixtures.js";
import { bytesOf, filesRuntime, forEachFilesDialect, sha256, workspaceWithDrive } from "./support.js";

const dayMs = 86_400_000;

t.test("every audit export object past its retention is removed by the daily run, whatever its age; one within retention stays", (t) =>
  forEachFilesDialect(t, "old audit exports removed", async (t, db) => {
    const env = filesRuntime(t, db);
    await workspaceWithDrive(env, "ws1", "adm");
    const t0 = Date.now();
    // Exports as they were stored before the retention existed: done, with no removal scheduled.
    const stored = async (id: string, completedDaysAgo: number) => {
      const key = `files/ws1/audit-exports/${id}.jsonl`;
      const bytes = bytesOf(`{"actor_id":"someone","export":"${id}"}\n`);
      await env.run(env.store.put(key, Stream.make(bytes)));
      const time = db.features.timeToDb(new Date(t0 - completedDaysAgo * dayMs));
      await db.db
        .insertInto("fs_audit_exports")
        .values({ id, workspace_id: "ws1", requested_by: "adm", status: "done", object_key: key, size_bytes: bytes.length, sha256: sha256(bytes), line_count: 1, error: null, created_at: time, completed_at: time })
        .execute();
      return key;
    };
    const ancient = await stored("0190e000-0000-7000-8000-000000000001", 400);
    const old = await stored("0190e000-0000-7000-8000-000000000002", 8);
    const recent = await stored("0190e000-0000-7000-8000-000000000003", 2);
    const removals = async () => Number((await db.db.selectFrom("jobs").select((eb) => eb.fn.countAll().as("n")).where("kind", "=", "files.object_removal").executeTakeFirstOrThrow()).n);

    await env.run(at(t0)(sweepTrash({ day: "2026-01-01", after: null })));
    t.equal(await removals(), 2, "the two exports past retention get a removal");
    await env.runtime.runPromise(Effect.withClock(runJobsOnce(filesJobs, { workerId: "old-exports" }), clockAhead(60_000)));
    t.equal(await env.run(env.store.stat(ancient)), null, "a year-old export's object is gone");
    t.equal(await env.run(env.store.stat(old)), null, "so is one just past its 7 days");
    t.not(await env.run(env.store.stat(recent)), null, "one within its retention stays");

    await env.run(at(t0 + dayMs)(sweepTrash({ day: "2026-01-02", after: null })));
    t.equal(await removals(), 2, "the next day's run schedules nothing again");
    await env.run(at(t0 + 6 * dayMs)(sweepTrash({ day: "2026-01-07", after: null })));
    t.equal(await removals(), 3, "the recent one once its retention has passed");

    const requested = await env.run(at(t0)(requestAuditExport({ userId: "adm", workspaceId: "ws1" })));
    t.equal(await env.run(at(t0)(runAuditExport("ws1", requested.id))), "done");
    t.equal(await removals(), 4, "an export finishing schedules its own removal");
    await env.run(at(t0 + 8 * dayMs)(sweepTrash({ day: "2026-01-09", after: null })));
    t.equal(await removals(), 4, "and the daily run adds none for it");

    const update = (set: Record<string, unknown>) => db.db.updateTable("fs_audit_exports").set(set).where("id", "=", requested.id).execute();
    await t.rejects(update({ object_removal_at: null }), "the database keeps a scheduled removal: never cleared");
    await t.rejects(update({ object_removal_at: db.features.timeToDb(new Date(t0 + 100 * dayMs)) }), "nor postponed");
  }),
);

t.test("concurrent daily runs schedule each expired export's removal once", (t) =>
  forEachFilesDialect(t, "old audit exports raced", async (t, db) => {
    const env = filesRuntime(t, db);
    await workspaceWithDrive(env, "ws1", "adm");
    const t0 = Date.now();
    const time = db.features.timeToDb(new Date(t0 - 30 * dayMs));
    const ids = Array.from({ length: 6 }, (_, n) => `0190e000-0000-7000-8000-00000000010${n}`);
    await db.db
      .insertInto("fs_audit_exports")
      .values(ids.map((id) => ({ id, workspace_id: "ws1", requested_by: "adm", status: "done", object_key: `files/ws1/audit-exports/${id}.jsonl`, size_bytes: 1, sha256: "e".repeat(64), line_count: 1, error: null, created_at: time, completed_at: time })))
      .execute();
    // Five runs at once (on Postgres, each in its own transaction on its own pooled connection).
    const counts = await Promise.all(Array.from({ length: 5 }, () => env.run(at(t0)(sweepExpiredAuditExports))));
    t.equal(counts.reduce((a, b) => a + b, 0), ids.length, "each export is scheduled by exactly one run");
    const jobs = await db.db.selectFrom("jobs").select("key").where("kind", "=", "files.object_removal").execute();
    t.same(jobs.map((j) => String(j.key)).sort(), ids.map((id) => `audit-export:${id}:retention`).sort(), "one removal per export");
  }),
);
