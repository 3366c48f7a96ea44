/**
 * The daily trash purge (04:00 UTC, keyed by day): pages through the trash roots trashed more
 * than `trashRetentionDays` ago, oldest first (100 per page, keyset on `(trashed_at, id)`), and
 * purges each in its own transaction (TrashPurge.ts). A held or busy root is passed over and
 * found again by the next day's run, so releasing a hold lets the next run purge it. A full page
 * schedules the next page at once, the last page the next day's run. The first page of a day
 * also schedules the removal of expired audit export objects that have none
 * (AuditExportRetentionSweep.ts).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import type { Jobs } from "../../ports/Jobs.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { TrashPurgeRepository } from "../../ports/files/TrashPurgeRepository.js";
import { sweepExpiredAuditExports } from "./AuditExportRetentionSweep.js";
import { nextDailyRunAt, utcDay } from "./DailyRun.js";
import { purgeTrashRoot, type PurgeOutcome } from "./TrashPurge.js";
import { trashPurgeJobType } from "./TrashPurgeJobType.js";
import { withSpan } from "../kernel/Span.js";

/** The UTC hour the purge runs at (after the quota sweep). */
export const trashPurgeHourUtc = 4;

/** Trash roots per page. */
export const trashPurgePageSize = 100;

const dayMs = 86_400_000;

/** Schedules the next purge run after `nowMs` (a no-op when that day's is already scheduled). */
export const scheduleTrashPurge = (nowMs: number): Effect.Effect<void, never, Jobs> => {
  const runAt = nextDailyRunAt(nowMs, trashPurgeHourUtc);
  const day = utcDay(runAt);
  return Effect.asVoid(trashPurgeJobType.schedule({ day, after: null }, { runAt: new Date(runAt), key: `day-${day}` }));
};

/** One page of the purge; answers what happened to each root of the page. */
export const sweepTrash = (payload: { readonly day: string; readonly after: readonly [string, string] | null }, pageSize: number = trashPurgePageSize) =>
  Effect.gen(function* () {
    const settings = yield* FilesSettings;
    const at = yield* now;
    if (payload.after === null) yield* sweepExpiredAuditExports;
    const cutoff = new Date(at.getTime() - settings.trashRetentionDays * dayMs);
    const after = payload.after === null ? null : ([new Date(payload.after[0]), payload.after[1]] as const);
    const roots = yield* (yield* TrashPurgeRepository).dueRoots(cutoff, after, pageSize);
    const outcomes: Array<PurgeOutcome & { readonly nodeId: string }> = [];
    for (const root of roots) outcomes.push({ nodeId: root.nodeId, ...(yield* purgeTrashRoot(root.workspaceId, root.nodeId, cutoff)) });
    const last = roots[roots.length - 1];
    if (roots.length === pageSize && last !== undefined) {
      const key: readonly [string, string] = [last.trashedAt.toISOString(), last.nodeId];
      yield* trashPurgeJobType.schedule({ day: payload.day, after: key }, { runAt: at, key: `day-${payload.day}:after-${last.nodeId}` });
    } else {
      yield* scheduleTrashPurge(at.getTime());
    }
    return outcomes;
  }).pipe(withSpan("files.sweepTrash"));

/** The purge job a worker runs. */
export const trashPurgeJob = trashPurgeJobType.handledBy((payload) => Effect.asVoid(sweepTrash(payload)));
