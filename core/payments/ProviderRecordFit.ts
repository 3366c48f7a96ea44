/**
 * Whether the provider's answer or record of an intent's payment fits what was asked: the
 * intent's currency and amount, and a captured amount within it. One that does not fit is never
 * applied as it stands (spec: ambiguous outcomes are "never guessed"); reconciliation opens an
 * exception for a human instead ("never silently auto-adjusted").
 */
import { Either } from "effect";
import type { AuthorizeResult, ProviderPayment, SettleResult } from "../../ports/payments/PaymentProvider.js";
import { ProviderOutcomeUnknown } from "./model/ProviderErrors.js";
import type { Refund } from "./model/Refund.js";
import type { MismatchKind } from "./model/ReconciliationException.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";

/** True when an authorization answer captured no more than the intent's amount. */
export const answerFitsIntent = (intent: PaymentIntent, answer: AuthorizeResult): boolean =>
  answer._tag !== "Authorized" || (answer.capturedMinor >= 0 && answer.capturedMinor <= intent.amountMinor);

/** The kind of mismatch between the provider's record of a held or captured payment and the intent, or null when it fits. */
export const recordMismatch = (intent: PaymentIntent, found: ProviderPayment): MismatchKind | null => {
  if (found.status !== "authorized" && found.status !== "captured") return null;
  if (found.amount.currency !== intent.currency) return "currency";
  if (found.amount.amount_minor !== intent.amountMinor || found.capturedMinor < 0 || found.capturedMinor > intent.amountMinor) return "amount";
  return null;
};

/**
 * A refund answer as it may be applied: one that refunded another amount than was sent is an
 * outcome not known (the refund stays pending, is asked again, then reaches a human).
 */
export const fittingRefundAnswer = (
  refund: Pick<Refund, "amountMinor">,
  answer: Either.Either<SettleResult, ProviderOutcomeUnknown>,
): Either.Either<SettleResult, ProviderOutcomeUnknown> =>
  Either.isRight(answer) && answer.right._tag === "Done" && answer.right.amountMinor !== refund.amountMinor
    ? Either.left(new ProviderOutcomeUnknown({ operation: "refund", detail: "The provider's answer does not match the refund sent." }))
    : answer;
