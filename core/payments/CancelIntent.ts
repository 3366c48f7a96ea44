/**
 * Command: cancel an intent that has not been captured (POST /v1/payment-intents/:id/cancel).
 * A held authorization, or a provider payment still waiting for the customer's authentication
 * (requires_action), is voided at the provider first, outside any transaction, under the
 * intent's one void reference; only then does the intent become canceled.
 */
import { Effect } from "effect";
import type { Conflict, Forbidden, NotFound } from "../kernel/Errors.js";
import type { Ids } from "../../ports/Ids.js";
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

/** Cancels the caller's intent (scope payments:write). */
export const cancelIntent = (
  principal: Principal,
  intentId: PaymentIntentId,
  reason?: string,
): Effect.Effect<
  PaymentIntent,
  Forbidden | NotFound | IllegalTransition | ProviderRejected | ProviderOutcomeUnknown | Conflict,
  PaymentsRepository | Transactions | Ids | PaymentProvider
> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "payments:write");
    const transactions = yield* Transactions;
    const intent = yield* transactions.run(
      Effect.flatMap(loadOwnedIntent(caller, intentId, true), (intent) => Effect.as(transition(intent.status, "cancel"), intent)),
    );
    // A payment waiting for the customer's authentication is cancelled at the provider too: the
    // customer could otherwise still authenticate and be charged for a canceled intent. If the
    // provider refuses (it already captured), nothing is committed and its webhook applies.
    if ((intent.status === "requires_capture" || intent.status === "requires_action") && intent.providerPaymentId !== null) {
      const answer = yield* (yield* PaymentProvider).void({ reference: voidReference(intent.id), providerPaymentId: intent.providerPaymentId });
      if (answer._tag === "Rejected") {
        return yield* Effect.fail(new ProviderRejected({ operation: "void", reason: answer.reason, detail: "The provider refused to void the authorization." }));
      }
    }
    return yield* transactions.run(
      Effect.gen(function* () {
        const current = yield* reloadIntent(intent.id);
        if (current.status === "canceled") return current;
        const next = yield* transition(current.status, "cancel");
        const saved = yield* saveIntent(current, { status: next, amountCapturableMinor: 0 }, yield* now);
        yield* audit({
          merchantId: current.merchantId,
          actor: actorOf(caller),
          action: "payment_intent.canceled",
          subjectType: "payment_intent",
          subjectId: current.id,
          reason: reason ?? "merchant request",
          data: { from: current.status },
        });
        return saved;
      }),
    );
  }).pipe(withSpan("Payments.cancelIntent"));
