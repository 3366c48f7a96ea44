/**
 * Command: cancel an intent that has not been captured (POST /v1/payment-intents/:id/cancel).
 * A held authorization, or a provider payment still waiting for the customer's authentication
 * (requires_action), is voided at the provider first, outside any transaction, under the
 * intent's one void reference; only then does the intent become canceled. The first transaction
 * of a void also schedules the intent's reconciliation job (key `<intent>:void`), cancelled once
 * the answer is applied: should the answer be lost or never recorded, the job looks the payment up
 * by our reference and cancels the intent when the provider voided it (ReconcileIntent.ts).
 */
import { Effect } from "effect";
import type { Conflict, Forbidden, NotFound } from "../kernel/Errors.js";
import type { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider } from "../../ports/payments/PaymentProvider.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { loadOwnedIntent, reloadIntent, saveIntent } from "./IntentRecords.js";
import { transition } from "./IntentStatus.js";
import { actorOf, requireMerchant } from "./MerchantAccess.js";
import { ProviderRejected, type IllegalTransition, type ProviderOutcomeUnknown } from "./Errors.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import { voidReference } from "./ProviderReferences.js";
import { withSpan } from "../kernel/Span.js";
import type { PaymentIntentId } from "./model/Ids.js";
import { reconcileIntentJobType } from "./ReconcileIntentJobType.js";
import { reconcileDelayMs } from "./ConfirmIntent.js";

/** The key of the reconciliation job a void schedules: one per intent (an intent is voided once). */
export const voidReconcileKey = (intentId: string): string => `${intentId}:void`;

/** Whether canceling `intent` voids a provider payment first. */
const voidsAtProvider = (intent: PaymentIntent): intent is PaymentIntent & { providerPaymentId: string } =>
  (intent.status === "requires_capture" || intent.status === "requires_action") && intent.providerPaymentId !== null;

/** Cancels the caller's intent (scope payments:write). */
export const cancelIntent = (
  principal: Principal,
  intentId: PaymentIntentId,
  reason?: string,
): Effect.Effect<
  PaymentIntent,
  Forbidden | NotFound | IllegalTransition | ProviderRejected | ProviderOutcomeUnknown | Conflict,
  PaymentsRepository | Transactions | Ids | PaymentProvider | Jobs
> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "payments:write");
    const transactions = yield* Transactions;
    const intent = yield* transactions.run(
      Effect.gen(function* () {
        const intent = yield* loadOwnedIntent(caller, intentId, true);
        yield* transition(intent.status, "cancel");
        if (voidsAtProvider(intent)) {
          // Should the provider's answer be lost (or never recorded), this job asks the provider.
          const at = yield* now;
          yield* reconcileIntentJobType.schedule({ intent_id: intent.id }, { key: voidReconcileKey(intent.id), runAt: new Date(at.getTime() + reconcileDelayMs) });
        }
        return intent;
      }),
    );
    const cancelReconciliation = Effect.flatMap(Jobs, (jobs) => jobs.cancel(reconcileIntentJobType.kind, voidReconcileKey(intent.id)));
    // A payment waiting for the customer's authentication is cancelled at the provider too: the
    // customer could otherwise still authenticate and be charged for a canceled intent. If the
    // provider refuses (it already captured), nothing is committed and its webhook applies.
    if (voidsAtProvider(intent)) {
      const answer = yield* (yield* PaymentProvider).void({ reference: voidReference(intent.id), providerPaymentId: intent.providerPaymentId });
      if (answer._tag === "Rejected") {
        yield* transactions.run(cancelReconciliation);
        return yield* Effect.fail(new ProviderRejected({ operation: "void", reason: answer.reason, detail: "The provider refused to void the authorization." }));
      }
    }
    return yield* transactions.run(
      Effect.zipLeft(applyCancel(actorOf(caller), intent.id, reason ?? "merchant request"), voidsAtProvider(intent) ? cancelReconciliation : Effect.void),
    );
  }).pipe(withSpan("Payments.cancelIntent"));

/** Moves the intent to canceled (its authorization released), audited, in the caller's transaction; a canceled intent is answered as it is. */
export const applyCancel = (
  actor: string,
  intentId: string,
  reason: string,
): Effect.Effect<PaymentIntent, IllegalTransition | Conflict, PaymentsRepository | Ids> =>
  Effect.gen(function* () {
    const current = yield* reloadIntent(intentId);
    if (current.status === "canceled") return current;
    const next = yield* transition(current.status, "cancel");
    const saved = yield* saveIntent(current, { status: next, amountCapturableMinor: 0 }, yield* now);
    yield* audit({
      merchantId: current.merchantId,
      actor,
      action: "payment_intent.canceled",
      subjectType: "payment_intent",
      subjectId: current.id,
      reason,
      data: { from: current.status },
    });
    return saved;
  });
