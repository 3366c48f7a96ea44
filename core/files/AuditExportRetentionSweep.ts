/**
 * The audit export retention for exports that have no scheduled removal (those finished before
 * the retention existed): the daily run (the trash purge's first page, TrashPurgeSweep.ts) pages
 * through the done exports completed more than `auditExportRetentionMs` ago whose object removal
 * was never scheduled, oldest first, and schedules each removal now, recording it on the export in
 * the same transaction (once: the mark is conditional, so of concurrent runs one schedules each;
 * a rerun finds nothing). The removal job removes the object.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { withSpan } from "../kernel/Span.js";
import { Transactions } from "../../ports/Transactions.js";
import { AuditExportsRepository } from "../../ports/files/AuditExportsRepository.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { scheduleAuditExportRemoval } from "./AuditExportJob.js";

/** Exports per page (one transaction each). */
export const auditExportSweepPageSize = 100;

/** Pages per run at most; the next day's run takes the rest. */
export const auditExportSweepMaxPages = 100;

/** Schedules the removal of every expired export object that has none; answers how many this run scheduled. */
export const sweepExpiredAuditExports = Effect.gen(function* () {
  const at = yield* now;
  const before = new Date(at.getTime() - (yield* FilesSettings).auditExportRetentionMs);
  const repo = yield* AuditExportsRepository;
  let scheduled = 0;
  for (let page = 0; page < auditExportSweepMaxPages; page++) {
    const expired = yield* repo.withoutObjectRemoval(before, auditExportSweepPageSize);
    const marked = yield* (yield* Transactions).run(Effect.forEach(expired, (audit) => scheduleAuditExportRemoval(audit, at)));
    scheduled += marked.filter((m) => m).length;
    if (expired.length < auditExportSweepPageSize) break;
  }
  return scheduled;
}).pipe(withSpan("files.sweepExpiredAuditExports"));
