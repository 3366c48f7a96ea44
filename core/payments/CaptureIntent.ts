/**
 * Command: capture a held authorization fully or partly (POST /v1/payment-intents/:id/capture).
 * Checked in a transaction, sent to the provider outside it under the intent's one capture
 * reference, applied with its ledger posting in a second transaction. A lost answer is a 503
 * and the intent stays requires_capture: a retry re-sends the same reference, so the provider
 * captures at most once. The first transaction also schedules the intent's reconciliation job
 * (key `<intent>:capture`), cancelled once the answer is applied: should the answer be lost or
 * never recorded, the job looks the payment up by our reference and applies a capture the
 * provider made (ReconcileIntent.ts); nothing is guessed and nothing is sent again.
 */
import { Effect } from "effect";
import { ValidationFailed, type Conflict, type CurrencyMismatch, type Forbidden, type NotFound } from "../kernel/Errors.js";
import type { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { RiskHolds } from "../../ports/payments/RiskHolds.js";
import { requireNotHeld } from "./RiskHolds.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { requireCurrency } from "./CurrencyCheck.js";
import { loadOwnedIntent, reloadIntent, saveIntent } from "./IntentRecords.js";
import { transition } from "./IntentStatus.js";
import { capturePosting, postLedger } from "./LedgerPostings.js";
import { emitPaymentSucceeded } from "./PaymentEvents.js";
import { actorOf, requireMerchant } from "./MerchantAccess.js";
import { AmountTooLarge, ProviderOutcomeUnknown, ProviderRejected, type IllegalTransition } from "./Errors.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import { captureReference } from "./ProviderReferences.js";
import { withSpan } from "../kernel/Span.js";
import type { PaymentIntentId } from "./model/Ids.js";
import { reconcileIntentJobType } from "./ReconcileIntentJobType.js";
import { reconcileDelayMs } from "./ConfirmIntent.js";

/** The key of the reconciliation job a capture schedules: one per intent (an intent is captured once). */
export const captureReconcileKey = (intentId: string): string => `${intentId}:capture`;

/** The amount to capture (default: everything held) and optionally its currency. */
export interface CaptureIntentInput {
  readonly amountMinor?: number;
  readonly currency?: string;
}

type CaptureError =
  | Forbidden
  | NotFound
  | IllegalTransition
  | CurrencyMismatch
  | ValidationFailed
  | AmountTooLarge
  | ProviderRejected
  | ProviderOutcomeUnknown
  | Conflict;

/** Captures the caller's authorized intent (scope payments:write). */
export const captureIntent = (
  principal: Principal,
  intentId: PaymentIntentId,
  input: CaptureIntentInput,
): Effect.Effect<PaymentIntent, CaptureError, PaymentsRepository | RiskHolds | Transactions | Ids | PaymentProvider | Outbox | Jobs> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "payments:write");
    const transactions = yield* Transactions;
    const { intent, amountMinor } = yield* transactions.run(
      Effect.gen(function* () {
        const intent = yield* loadOwnedIntent(caller, intentId, true);
        yield* transition(intent.status, "capture");
        yield* requireNotHeld(intent);
        yield* requireCurrency(intent.currency, input.currency);
        const amountMinor = input.amountMinor ?? intent.amountCapturableMinor;
        if (!Number.isSafeInteger(amountMinor) || amountMinor <= 0) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "amount_minor", message: "must be a positive amount of minor units" }] }));
        }
        if (amountMinor > intent.amountCapturableMinor) {
          return yield* Effect.fail(
            new AmountTooLarge({ maximumMinor: intent.amountCapturableMinor, detail: `At most ${intent.amountCapturableMinor} can be captured.` }),
          );
        }
        // Should the provider's answer be lost (or never recorded), this job asks the provider.
        const at = yield* now;
        yield* reconcileIntentJobType.schedule({ intent_id: intent.id }, { key: captureReconcileKey(intent.id), runAt: new Date(at.getTime() + reconcileDelayMs) });
        return { intent, amountMinor };
      }),
    );
    const provider = yield* PaymentProvider;
    const answer = yield* provider.capture({
      reference: captureReference(intent.id),
      providerPaymentId: intent.providerPaymentId ?? "",
      amount: { amount_minor: amountMinor, currency: intent.currency },
    });
    const cancelReconciliation = Effect.flatMap(Jobs, (jobs) => jobs.cancel(reconcileIntentJobType.kind, captureReconcileKey(intent.id)));
    if (answer._tag === "Rejected") {
      yield* transactions.run(cancelReconciliation);
      return yield* Effect.fail(new ProviderRejected({ operation: "capture", reason: answer.reason, detail: "The provider refused the capture." }));
    }
    if (answer.amountMinor !== amountMinor) {
      // Not what was sent: not applied as answered. The reconciliation job applies the provider's record.
      return yield* Effect.fail(new ProviderOutcomeUnknown({ operation: "capture", detail: "The provider's answer does not match the capture sent." }));
    }
    return yield* transactions.run(
      Effect.zipLeft(applyCapture(actorOf(caller), intent.id, answer.amountMinor, "merchant request"), cancelReconciliation),
    );
  }).pipe(withSpan("Payments.captureIntent"));

/**
 * Applies a capture of `capturedMinor` the provider made to a held authorization, with its
 * ledger posting, PaymentSucceeded and the attempt marked captured, in the caller's transaction
 * (the intent is locked). An intent already succeeded (a concurrent capture or the webhook applied it) is answered as it is.
 */
export const applyCapture = (
  actor: string,
  intentId: string,
  capturedMinor: number,
  reason: string,
): Effect.Effect<PaymentIntent, IllegalTransition | Conflict, PaymentsRepository | Ids | Outbox> =>
  Effect.gen(function* () {
    const current = yield* reloadIntent(intentId);
    // A concurrent capture of the same reference already applied the provider's answer.
    if (current.status === "succeeded") return current;
    yield* transition(current.status, "capture");
    const at = yield* now;
    // The attempt records the capture, as the provider's captured event does.
    const repo = yield* PaymentsRepository;
    const attempt = yield* repo.findAttempt(current.id, current.attemptCount);
    if (attempt !== null && attempt.status === "authorized") yield* repo.updateAttempt({ ...attempt, status: "captured", updatedAt: at });
    // Posted before the move: the database checks the posting when the intent succeeds (migration 30).
    yield* postLedger(current.merchantId, capturePosting(current.merchantId, current.id, capturedMinor, current.currency)).pipe(Effect.orDie);
    const saved = yield* saveIntent(current, { status: "succeeded", amountCapturedMinor: capturedMinor, amountCapturableMinor: 0 }, at);
    yield* emitPaymentSucceeded(saved, actor);
    yield* audit({
      merchantId: current.merchantId,
      actor,
      action: "payment_intent.captured",
      subjectType: "payment_intent",
      subjectId: current.id,
      reason,
      data: { amount_minor: capturedMinor, released_minor: current.amountCapturableMinor - capturedMinor },
    });
    return saved;
  });
