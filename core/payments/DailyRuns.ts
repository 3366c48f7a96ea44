/**
 * The payment module's daily background runs — settlement reconciliation of the previous UTC
 * day and the open-exception report — as durable, self-rescheduling jobs. Each run is keyed by
 * the day it covers, so any number of worker processes scheduling at start-up, or a run
 * scheduling its successor twice, still yields one job per day.
 */
import { Effect } from "effect";
import { Jobs } from "../../ports/Jobs.js";
import { exceptionReportJobKind } from "./ExceptionReport.js";
import { reconcileSettlementJobKind } from "./SettlementReconciliation.js";

const dayMs = 24 * 60 * 60_000;

/** The UTC day (YYYY-MM-DD) of `at`. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** A daily run: its job kind and the UTC hour it runs at. */
export interface DailyRun {
  readonly kind: string;
  readonly hourUtc: number;
}

/** Settlement files of a day are final early the next morning: reconcile yesterday at 06:00 UTC. */
export const dailySettlementRun: DailyRun = { kind: reconcileSettlementJobKind, hourUtc: 6 };

/** The open-exception report, after the settlement run: 07:00 UTC. */
export const dailyExceptionReportRun: DailyRun = { kind: exceptionReportJobKind, hourUtc: 7 };

/**
 * Schedules the first run of `run` after `nowMs`; its payload's `day` is the UTC day before the
 * run (the day it covers). A no-op when that day's run is already scheduled.
 */
export const scheduleNextDailyRun = (run: DailyRun, nowMs: number): Effect.Effect<void, never, Jobs> =>
  Effect.gen(function* () {
    const startOfDay = Math.floor(nowMs / dayMs) * dayMs;
    let runAt = startOfDay + run.hourUtc * 60 * 60_000;
    if (runAt <= nowMs) runAt += dayMs;
    const day = utcDay(new Date(runAt - dayMs));
    yield* (yield* Jobs).schedule({ kind: run.kind, key: `day-${day}`, payload: { day }, runAt: new Date(runAt) });
  });
