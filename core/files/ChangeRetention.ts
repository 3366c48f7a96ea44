/**
 * Change log retention (spec: a cursor older than the retention window answers cursor_expired
 * with a restart point). Per workspace, under the drive lock: the mark `pruned_through_seq`
 * advances over the changes recorded more than `changeRetentionDays` ago and the rows at or
 * below it are deleted (the only delete the database allows on the change log). A cursor before
 * the mark then answers 410 `cursor_expired` with the end of the log as its restart point. The
 * nodes the trash purge reduced to stubs (TrashPurge.ts) are deleted once none of their changes
 * is left (at most `stubSubtreesPerRun` purged subtrees per workspace and run; the next run
 * takes the rest).
 * The daily sweep (04:30 UTC, keyed by day) pages through the drives like the quota sweep.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import type { Jobs } from "../../ports/Jobs.js";
import { Transactions } from "../../ports/Transactions.js";
import { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { TrashPurgeRepository } from "../../ports/files/TrashPurgeRepository.js";
import { changeRetentionJobType } from "./ChangeRetentionJobType.js";
import { nextDailyRunAt, utcDay } from "./DailyRun.js";
import { withSpan } from "../kernel/Span.js";

/** The UTC time the change retention runs at: 04:30. */
export const changeRetentionHourUtc = 4;
export const changeRetentionMinuteUtc = 30;

/** Purged subtrees whose stubs one run deletes per workspace at most. */
export const stubSubtreesPerRun = 100;

/** Workspaces per page. */
export const changeRetentionPageSize = 500;

const dayMs = 86_400_000;

/** Prunes one workspace's change log; answers the mark and how many rows were deleted. */
export const pruneChanges = (workspaceId: string) =>
  Effect.flatMap(Transactions, (tx) =>
    tx.run(
      Effect.gen(function* () {
        const drives = yield* DriveRepository;
        const drive = yield* drives.lock(workspaceId);
        if (drive === null) return null;
        const changes = yield* ChangesRepository;
        const cutoff = new Date((yield* now).getTime() - (yield* FilesSettings).changeRetentionDays * dayMs);
        const due = yield* changes.lastSeqBefore(workspaceId, cutoff);
        const mark = due > drive.prunedThroughSeq ? yield* drives.pruneThrough(workspaceId, due) : drive.prunedThroughSeq;
        const deleted = mark > 0 ? yield* changes.deleteThrough(workspaceId, mark) : 0;
        yield* (yield* TrashPurgeRepository).removeStubsOutOfWindow(workspaceId, stubSubtreesPerRun);
        return { prunedThroughSeq: mark, deleted };
      }),
    ),
  ).pipe(withSpan("files.pruneChanges"));

/** Schedules the next run after `nowMs` (a no-op when that day's is already scheduled). */
export const scheduleChangeRetention = (nowMs: number): Effect.Effect<void, never, Jobs> => {
  const runAt = nextDailyRunAt(nowMs, changeRetentionHourUtc, changeRetentionMinuteUtc);
  const day = utcDay(runAt);
  return Effect.asVoid(changeRetentionJobType.schedule({ day, after: null }, { runAt: new Date(runAt), key: `day-${day}` }));
};

/** One page of the sweep: prunes each workspace, then the next page or the next day. */
export const sweepChanges = (payload: { readonly day: string; readonly after: string | null }, pageSize: number = changeRetentionPageSize) =>
  Effect.gen(function* () {
    const workspaces = yield* (yield* DriveRepository).workspaces(payload.after, pageSize);
    for (const workspaceId of workspaces) yield* pruneChanges(workspaceId);
    const at = yield* now;
    const last = workspaces[workspaces.length - 1];
    if (workspaces.length === pageSize && last !== undefined) {
      yield* changeRetentionJobType.schedule({ day: payload.day, after: last }, { runAt: at, key: `day-${payload.day}:after-${last}` });
    } else {
      yield* scheduleChangeRetention(at.getTime());
    }
    return workspaces.length;
  }).pipe(withSpan("files.sweepChanges"));

/** The change retention job a worker runs. */
export const changeRetentionJob = changeRetentionJobType.handledBy((payload) => Effect.asVoid(sweepChanges(payload)));
