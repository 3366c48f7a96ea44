/**
 * The payment module's daily background runs — settlement reconciliation of the previous UTC
 * day and the open-exception report — as durable, self-rescheduling jobs. Each run is keyed by
 * the day it covers, so any number of worker processes scheduling at start-up, or a run
 * scheduling its successor twice, still yields one job per day.
 */
import { Clock, Effect, Schema } from "effect";
import { Jobs } from "../../ports/Jobs.js";

const dayMs = 24 * 60 * 60_000;

/** The UTC day (YYYY-MM-DD) of `at`. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** The payload of a daily run's job: the UTC day (YYYY-MM-DD) it covers. */
export const DailyRunPayload = Schema.Struct({ day: Schema.String });
export type DailyRunPayload = typeof DailyRunPayload.Type;

/** A daily run: its job kind and the UTC hour it runs at. */
export interface DailyRun {
  readonly kind: string;
  readonly hourUtc: number;
}

/** Settlement files of a day are final early the next morning: reconcile yesterday at 06:00 UTC. */
export const dailySettlementRun: DailyRun = { kind: "payments.reconcile_settlement", hourUtc: 6 };

/** The open-exception report, after the settlement run: 07:00 UTC. */
export const dailyExceptionReportRun: DailyRun = { kind: "payments.exception_report", hourUtc: 7 };

/** Schedules the run after `nowMs` of the daily job that just ran (at the end of its handler). */
export const scheduleFollowingRun = (run: DailyRun): Effect.Effect<void, never, Jobs> =>
  Effect.flatMap(Clock.currentTimeMillis, (nowMs) => scheduleNextDailyRun(run, nowMs));

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
    yield* (yield* Jobs).schedule({ kind: run.kind, key: `day-${day}`, payload: Schema.encodeSync(DailyRunPayload)({ day }), runAt: new Date(runAt) });
  });
