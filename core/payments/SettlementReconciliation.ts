/**
 * Settlement-file reconciliation (spec rule 12): compares the provider's file for one UTC day
 * with our captures and refunds of that day, and opens one exception per mismatch — missing
 * (on either side), amount, currency, status — unique per provider object and settlement
 * window, so running the same day twice opens nothing new. Nothing is adjusted automatically.
 */
import { Effect } from "effect";
import type { Ids } from "../../ports/Ids.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { ReconciliationSettlementFiles } from "../../ports/payments/ReconciliationSettings.js";
import type { ProviderOutcomeUnknown } from "./Errors.js";
import { SettlementFileInvalid } from "./Errors.js";
import { openReconciliationException, type MismatchInput } from "./ReconciliationExceptions.js";
import type { MismatchKind, SettledObject } from "./model/ReconciliationException.js";
import { parseSettlementFile, type SettlementRow } from "./SettlementFile.js";
import { reconcilerActor } from "./ReconciliationWindow.js";
import { DailyRunPayload, dailySettlementRun, scheduleFollowingRun } from "./DailyRuns.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { withSpan } from "../kernel/Span.js";

/** The durable job kind that reconciles one day's settlement file (payload `{ day }`). */
export const reconcileSettlementJobKind = dailySettlementRun.kind;

/** What one run found. */
export interface SettlementSummary {
  readonly day: string;
  readonly rows: number;
  readonly mismatches: number;
  /** Exceptions this run opened (0 on a repeated run). */
  readonly opened: number;
}

type Services = ReconciliationRepository | PaymentsRepository | Transactions | Ids | Outbox;

const dayBounds = (day: string): Effect.Effect<{ from: Date; to: Date }, SettlementFileInvalid> => {
  const from = new Date(`${day}T00:00:00.000Z`);
  if (!/^\d{4}-\d{2}-\d{2}$/.test(day) || Number.isNaN(from.getTime()) || from.toISOString().slice(0, 10) !== day) {
    return Effect.fail(new SettlementFileInvalid({ detail: "day must be a calendar date YYYY-MM-DD" }));
  }
  return Effect.succeed({ from, to: new Date(from.getTime() + 86_400_000) });
};

/** The status the provider reports for a settled object of `type`. */
const settledStatus = (type: SettledObject["type"]): string => (type === "payment" ? "captured" : "succeeded");

const view = (o: SettledObject): Record<string, unknown> => ({ type: o.type, amount_minor: o.amountMinor, currency: o.currency, status: o.status });
const rowView = (r: SettlementRow): Record<string, unknown> => ({ type: r.type, amount_minor: r.amountMinor, currency: r.currency, status: r.status, provider_payment_id: r.providerPaymentId });

/** The mismatch between one file row and our object, if any: one per object, with every kind found (status, and currency or amount). */
const compare = (day: string, row: SettlementRow, ours: SettledObject | null): MismatchInput[] => {
  const base = { providerObject: row.reference, settlementWindow: day, observed: rowView(row), currency: row.currency };
  if (ours === null || ours.type !== row.type) {
    return [{ ...base, merchantId: null, kind: "missing", subjectType: "unknown", subjectId: null, expected: null }];
  }
  const mine = { ...base, merchantId: ours.merchantId, subjectType: ours.type === "payment" ? ("payment_intent" as const) : ("refund" as const), subjectId: ours.subjectId, expected: view(ours) };
  const kinds: MismatchKind[] = [];
  if (ours.status !== row.status) kinds.push("status");
  if (ours.currency !== row.currency) kinds.push("currency");
  else if (ours.status === row.status && ours.amountMinor !== row.amountMinor) kinds.push("amount");
  const [kind] = kinds;
  // One exception per provider object and window (spec, Events), carrying every kind found; the
  // first is its kind. A currency mismatch alone records our currency, as before.
  if (kind === undefined) return [];
  return [{ ...mine, kind, kinds, ...(kind === "currency" ? { currency: ours.currency } : {}) }];
};

/** Reconciles the settlement file `csv` of UTC day `day` against our records. */
export const reconcileSettlementFile = (day: string, csv: string): Effect.Effect<SettlementSummary, SettlementFileInvalid, Services> =>
  Effect.gen(function* () {
    const { from, to } = yield* dayBounds(day);
    const rows = yield* parseSettlementFile(csv);
    const repo = yield* ReconciliationRepository;
    const transactions = yield* Transactions;
    const mismatches: MismatchInput[] = [];
    const listed = new Set<string>();
    for (const row of rows) {
      listed.add(row.reference);
      mismatches.push(...compare(day, row, yield* repo.settledByReference(row.reference)));
    }
    for (const ours of yield* repo.settledInWindow({ from, to })) {
      if (listed.has(ours.reference)) continue;
      mismatches.push({
        merchantId: ours.merchantId,
        providerObject: ours.reference,
        settlementWindow: day,
        kind: "missing",
        subjectType: ours.type === "payment" ? "payment_intent" : "refund",
        subjectId: ours.subjectId,
        expected: { ...view(ours), status: settledStatus(ours.type) },
        observed: null,
        currency: ours.currency,
      });
    }
    let opened = 0;
    for (const mismatch of mismatches) {
      // One transaction per mismatch: a large file never holds one long transaction.
      const isNew = yield* transactions.run(
        openReconciliationException(mismatch, reconcilerActor, `settlement file ${day}: ${(mismatch.kinds ?? [mismatch.kind]).join(" and ")} mismatch for ${mismatch.providerObject}`),
      );
      if (isNew) opened += 1;
    }
    return { day, rows: rows.length, mismatches: mismatches.length, opened };
  }).pipe(withSpan("Payments.reconcileSettlementFile"));

/** Fetches the provider's file of `day` and reconciles it (what the durable job runs). */
export const reconcileSettlementDay = (
  day: string,
): Effect.Effect<SettlementSummary, SettlementFileInvalid | ProviderOutcomeUnknown, Services | ReconciliationSettlementFiles> =>
  Effect.flatMap(ReconciliationSettlementFiles, (files) => files.fetch(day)).pipe(Effect.flatMap((csv) => reconcileSettlementFile(day, csv)));

/**
 * Settlement-file reconciliation of one UTC day as a durable job (payload `{ day: "YYYY-MM-DD" }`);
 * the daily run schedules the next day's once it has finished.
 */
export const reconcileSettlementJob = defineJob({
  kind: reconcileSettlementJobKind,
  payload: DailyRunPayload,
  handle: ({ day }) => Effect.zipRight(reconcileSettlementDay(day), scheduleFollowingRun(dailySettlementRun)),
});
