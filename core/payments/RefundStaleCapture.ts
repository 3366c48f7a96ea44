/**
 * Gives back what the provider holds or took under an earlier attempt of an intent (spec, Payment
 * service: a mismatch is "resolved by humans", never auto-adjusted; ProviderEventProcessing.ts opens
 * its `status` exception for a hold or a capture). A human resolves that exception with
 * `refund_stale_capture`, the one kind for both; a keyed job (`exception:<id>`) then looks the
 * earlier attempt's reference up at the provider and
 * - voids a hold (`authorized`) under `exception:<id>/void`;
 * - refunds the whole capture under `exception:<id>/refund` (a capture partly refunded elsewhere is
 *   refused, which reaches a human as below);
 * - records `nothing_to_refund` for anything else. A record found `voided` is asked to void again
 *   under `exception:<id>/void` first: the provider answers what it did under that reference (our
 *   void whose answer was lost, recorded `voided`) or refuses (released otherwise: nothing to give).
 * The provider acts once per reference and answers a repeated request with what it did. Nothing of
 * it was ever posted to our ledger, so the give-back posts nothing. The durable outcome is the
 * exception's `settled` outcome (one per exception, payments migration 31): a run that finds it does
 * nothing; a run after a lost answer asks again under the same reference. A void or refund the
 * provider refuses opens a `status` exception on its object (`exception:<id>/void|refund`).
 */
import { Effect } from "effect";
import type { Conflict } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider, type ProviderPayment } from "../../ports/payments/PaymentProvider.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { withSpan } from "../kernel/Span.js";
import { audit } from "./Audit.js";
import type { ProviderOutcomeUnknown } from "./Errors.js";
import { openReconciliationException } from "./ReconciliationExceptions.js";
import { reconcilerActor } from "./ReconciliationWindow.js";
import { refundStaleCaptureJobType, refundStaleCaptureReference } from "./RefundStaleCaptureJobType.js";
import type { GiveBack } from "./SettleIntentJobType.js";
import { ReconciliationOutcomeId } from "./model/Ids.js";
import { ambiguityWindowName, type ReconciliationException } from "./model/ReconciliationException.js";

/** What a run recorded as the exception's `settled` outcome. */
type Result = "voided" | "refunded" | "nothing_to_refund" | "refused";

/** What one run did. */
export type RefundStaleCaptureOutcome = { readonly _tag: "NothingToDo" } | { readonly _tag: "Recorded"; readonly result: Result };

/** Gives back the stale hold or capture of exception `exceptionId` (see the file comment). */
export const refundStaleCapture = (
  exceptionId: string,
): Effect.Effect<RefundStaleCaptureOutcome, ProviderOutcomeUnknown | Conflict, PaymentProvider | Transactions | Ids | Outbox | ReconciliationRepository | PaymentsRepository> =>
  Effect.gen(function* () {
    const repo = yield* ReconciliationRepository;
    const exception = yield* repo.findException(exceptionId);
    if (exception === null || exception.status !== "resolved" || exception.resolution?.["kind"] !== "refund_stale_capture") return { _tag: "NothingToDo" as const };
    if ((yield* repo.listOutcomes(exception.id)).some((o) => o.action === "settled")) return { _tag: "NothingToDo" as const };
    const provider = yield* PaymentProvider;
    const found = yield* provider.lookup(exception.providerObject);
    if (found !== null && (found.status === "authorized" || found.status === "voided")) {
      // A retry after a lost answer finds the hold voided, and asks for the same void under the same reference.
      const reference = refundStaleCaptureReference(exception.id, "void");
      const given = yield* provider.void({ reference, providerPaymentId: found.providerPaymentId ?? "" });
      if (given._tag === "Done") {
        return yield* record(exception, "voided", { reference, amount_minor: given.amountMinor, currency: found.amount.currency, provider_payment_id: found.providerPaymentId });
      }
      if (found.status === "voided") return yield* record(exception, "nothing_to_refund", { observed_status: found.status });
      return yield* refused(exception, found, "void", found.amount.amount_minor, given.reason);
    }
    // The whole capture: a retry after a lost answer asks for the same refund under the same reference.
    const left = found === null || found.status !== "captured" ? 0 : found.capturedMinor;
    if (found === null || left <= 0) return yield* record(exception, "nothing_to_refund", { observed_status: found?.status ?? null });
    const reference = refundStaleCaptureReference(exception.id, "refund");
    const amount = { amount_minor: left, currency: found.amount.currency };
    const given = yield* provider.refund({ reference, providerPaymentId: found.providerPaymentId ?? "", amount });
    if (given._tag === "Rejected") return yield* refused(exception, found, "refund", left, given.reason);
    return yield* record(exception, "refunded", { reference, amount_minor: given.amountMinor, currency: found.amount.currency, provider_payment_id: found.providerPaymentId });
  }).pipe(withSpan("Payments.refundStaleCapture"));

const reasonOf = (exception: ReconciliationException) => `reconciliation exception ${exception.id} resolved with refund_stale_capture`;

/** Appends the exception's `settled` outcome and the audit record, in one transaction. */
const record = (exception: ReconciliationException, result: Result, data: Readonly<Record<string, unknown>>) =>
  Effect.flatMap(Transactions, (transactions) => transactions.run(recordSettled(exception, result, data)));

/** The `settled` outcome and its audit record, in the caller's transaction. */
const recordSettled = (exception: ReconciliationException, result: Result, data: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    const recorded = { result, stale_reference: exception.providerObject, ...data };
    yield* (yield* ReconciliationRepository).appendOutcome({
      id: ReconciliationOutcomeId.make(yield* (yield* Ids).next),
      exceptionId: exception.id,
      merchantId: exception.merchantId,
      action: "settled",
      actor: reconcilerActor,
      reason: reasonOf(exception),
      ledgerSource: null,
      data: recorded,
      createdAt: yield* now,
    });
    yield* audit({
      merchantId: exception.merchantId,
      actor: reconcilerActor,
      action: "reconciliation_exception.stale_capture_settled",
      subjectType: "reconciliation_exception",
      subjectId: exception.id,
      reason: reasonOf(exception),
      data: recorded,
    });
    return { _tag: "Recorded" as const, result };
  });

/** A refused void or refund: a `status` exception on its object (once), recorded with the outcome. */
const refused = (exception: ReconciliationException, found: ProviderPayment, operation: GiveBack, amountMinor: number, refusal: string) =>
  Effect.flatMap(Transactions, (transactions) =>
    transactions.run(
      Effect.gen(function* () {
        const object = refundStaleCaptureReference(exception.id, operation);
        yield* openReconciliationException(
          {
            merchantId: exception.merchantId,
            providerObject: object,
            settlementWindow: ambiguityWindowName,
            kind: "status",
            subjectType: exception.subjectType,
            subjectId: exception.subjectId,
            expected: { status: operation === "void" ? "voided" : "refunded", amount_minor: amountMinor, exception_id: exception.id, reference: found.reference },
            observed: { status: found.status, captured_minor: found.capturedMinor, refunded_minor: found.refundedMinor, currency: found.amount.currency, refused: refusal },
            currency: found.amount.currency,
          },
          reconcilerActor,
          `the provider refused the ${operation} of ${found.reference} asked by ${reasonOf(exception)} (${refusal})`,
        );
        return yield* recordSettled(exception, "refused", { operation, opened_on: object, refused: refusal, amount_minor: amountMinor, currency: found.amount.currency });
      }),
    ),
  );

/** The give-back as a durable job: a provider that does not answer fails it, and the runner retries. */
export const refundStaleCaptureJob = refundStaleCaptureJobType.handledBy(({ exception_id }) => Effect.asVoid(refundStaleCapture(exception_id)));
