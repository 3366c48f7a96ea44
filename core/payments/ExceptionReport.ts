/**
 * Exception reporting (spec, background work): once a day the open reconciliation exceptions
 * are summarised per merchant — how many of each kind, the oldest — and each merchant with open
 * items gets one ReconciliationExceptionsOpen event (its merchant webhooks deliver it, signed
 * and retried); operator items without a merchant are reported under "platform". The report row
 * is unique per (merchant, day), so a retried or raced run announces each report once.
 */
import { Effect } from "effect";
import type { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { ReconciliationRepository, type OpenExceptionGroup } from "../../ports/payments/ReconciliationRepository.js";
import { now } from "../kernel/Clock.js";
import { ReconciliationExceptionsOpen } from "./Events.js";
import { DailyRunPayload, dailyExceptionReportRun, scheduleFollowingRun } from "./DailyRuns.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { reconcilerActor } from "./ReconciliationWindow.js";
import { withSpan } from "../kernel/Span.js";

/** The job kind of the daily report (payload `{ day: "YYYY-MM-DD" }`). */
export const exceptionReportJobKind = dailyExceptionReportRun.kind;

/** The event announcing a merchant's open exceptions. */
export const reconciliationExceptionsOpen = ReconciliationExceptionsOpen.type;

/** What one report run did. */
export interface ExceptionReportSummary {
  readonly day: string;
  /** Merchants (and "platform") with open exceptions. */
  readonly reported: number;
  /** Reports recorded by this run (0 when the day was reported already). */
  readonly announced: number;
  readonly open: number;
}

/** Reports the open exceptions as of now under `day`; idempotent per (merchant, day). */
export const reportOpenExceptions = (
  day: string,
): Effect.Effect<ExceptionReportSummary, never, ReconciliationRepository | Outbox | Transactions | Ids> =>
  (Effect.gen(function* () {
    const repo = yield* ReconciliationRepository;
    const at = yield* now;
    const groups = yield* repo.openExceptionSummary();
    const byMerchant = new Map<string, OpenExceptionGroup[]>();
    for (const group of groups) {
      const key = group.merchantId ?? "platform";
      byMerchant.set(key, [...(byMerchant.get(key) ?? []), group]);
    }
    let announced = 0;
    let open = 0;
    for (const [merchantKey, items] of byMerchant) {
      const count = items.reduce((sum, g) => sum + g.count, 0);
      open += count;
      const oldest = items.reduce((min, g) => (g.oldestOpenedAt < min ? g.oldestOpenedAt : min), items[0]!.oldestOpenedAt);
      const summary = {
        report_day: day,
        open: count,
        by_kind: Object.fromEntries(items.map((g) => [g.kind, g.count])),
        oldest_opened_at: oldest.toISOString(),
      };
      if (!(yield* repo.recordExceptionReport({ merchantKey, reportDay: day, openCount: count, summary, createdAt: at }))) continue;
      announced += 1;
      const event = yield* ReconciliationExceptionsOpen.make({
        tenant_id: merchantKey,
        aggregate_id: `exception_report:${merchantKey}:${day}`,
        aggregate_version: 1,
        actor_id: reconcilerActor,
        data: summary,
      });
      yield* (yield* Outbox).append([event]);
      yield* Effect.logWarning("open reconciliation exceptions").pipe(Effect.annotateLogs({ merchant: merchantKey, day, open: count }));
    }
    return { day, reported: byMerchant.size, announced, open };
  }).pipe((program) => Effect.flatMap(Transactions, (transactions) => transactions.run(program)))).pipe(
    withSpan("Payments.reportOpenExceptions"),
  );

/** The daily open-exception report as a durable job; it schedules the next day's. */
export const exceptionReportJob = defineJob({
  kind: exceptionReportJobKind,
  payload: DailyRunPayload,
  handle: ({ day }) => Effect.zipRight(reportOpenExceptions(day), scheduleFollowingRun(dailyExceptionReportRun)),
});
