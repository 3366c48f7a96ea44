/**
 * The daily quota sweep (spec: background work, quota reconciliation): at 03:00 UTC it pages
 * through the workspaces that have a drive and schedules one reconciliation job for each
 * (`files.quota_reconciliation`, keyed by workspace and day, so a repeated page schedules
 * nothing twice); the last page schedules the next day's sweep. Hosts start it with
 * `scheduleQuotaSweep` when a worker starts (keyed by day: any number of workers, one sweep).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Transactions } from "../../ports/Transactions.js";
import type { Jobs } from "../../ports/Jobs.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { nextDailyRunAt, utcDay } from "./DailyRun.js";
import { quotaSweepJobType } from "./QuotaSweepJobType.js";
import { quotaReconciliationJob } from "./ReconcileQuota.js";
import { withSpan } from "../kernel/Span.js";

/** The UTC hour the sweep runs at. */
export const quotaSweepHourUtc = 3;

/** Workspaces per sweep page. */
export const quotaSweepPageSize = 500;

/** The first sweep time strictly after `nowMs`. */
export const nextQuotaSweepAt = (nowMs: number): number => nextDailyRunAt(nowMs, quotaSweepHourUtc);

/** Schedules the next sweep after `nowMs` (a no-op when that day's is already scheduled). */
export const scheduleQuotaSweep = (nowMs: number): Effect.Effect<void, never, Jobs> => {
  const runAt = nextQuotaSweepAt(nowMs);
  const day = utcDay(runAt);
  return Effect.asVoid(quotaSweepJobType.schedule({ day, after: null }, { runAt: new Date(runAt), key: `day-${day}` }));
};

/** One page of the sweep: a reconciliation per workspace, then the next page or the next day. */
export const sweepQuotas = (payload: { readonly day: string; readonly after: string | null }, pageSize: number = quotaSweepPageSize) =>
  Effect.gen(function* () {
    const workspaces = yield* (yield* DriveRepository).workspaces(payload.after, pageSize);
    const at = yield* now;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        for (const workspaceId of workspaces) {
          yield* quotaReconciliationJob.schedule({ workspace_id: workspaceId }, { runAt: at, key: `${workspaceId}:${payload.day}` });
        }
        const last = workspaces[workspaces.length - 1];
        if (workspaces.length === pageSize && last !== undefined) {
          yield* quotaSweepJobType.schedule({ day: payload.day, after: last }, { runAt: at, key: `day-${payload.day}:after-${last}` });
        } else {
          yield* scheduleQuotaSweep(at.getTime());
        }
      }),
    );
    return workspaces.length;
  }).pipe(withSpan("files.sweepQuotas"));

/** The sweep job a worker runs. */
export const quotaSweepJob = quotaSweepJobType.handledBy((payload) => Effect.asVoid(sweepQuotas(payload)));
