/**
 * Provider status reconciliation of one intent (spec rule 3): an intent left in processing by
 * a lost provider answer is resolved by asking the provider what it did under the attempt's
 * stable reference, then applying that answer exactly as a live answer would be. When the
 * provider never saw the reference nothing is guessed: the intent stays processing, and the
 * caller (a durable job) asks again later. Opening a reconciliation exception once the
 * resolution window has passed is a later slice.
 */
import { Effect, Either } from "effect";
import type { Conflict } from "../kernel/Errors.js";
import type { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider, type AuthorizeResult, type ProviderPayment } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { applyAttemptOutcome, type ConfirmOutcome } from "./ConfirmIntent.js";
import type { IllegalTransition, ProviderOutcomeUnknown } from "./Errors.js";
import { withSpan } from "../kernel/Span.js";

/** What reconciliation found. */
export type ReconcileOutcome =
  | { readonly _tag: "Resolved"; readonly outcome: ConfirmOutcome }
  | { readonly _tag: "NotSeenByProvider" }
  | { readonly _tag: "NothingToReconcile" };

/** The provider's record as the answer it would have given to the authorization. */
const asAnswer = (payment: ProviderPayment): AuthorizeResult | null => {
  switch (payment.status) {
    case "captured":
      return { _tag: "Authorized", providerPaymentId: payment.providerPaymentId ?? "", capturedMinor: payment.capturedMinor };
    case "authorized":
      return { _tag: "Authorized", providerPaymentId: payment.providerPaymentId ?? "", capturedMinor: 0 };
    case "requires_action":
      return { _tag: "RequiresAction", providerPaymentId: payment.providerPaymentId ?? "" };
    case "declined":
      return { _tag: "Declined", declineCode: payment.declineCode ?? "declined" };
    case "voided":
      return null;
  }
};

/** Reconciles intent `intentId` with the provider; `actor` is audited (a system name). */
export const reconcileIntent = (
  intentId: string,
  actor = "system:reconciliation",
): Effect.Effect<
  ReconcileOutcome,
  ProviderOutcomeUnknown | IllegalTransition | Conflict,
  PaymentsRepository | PaymentProvider | Transactions | Ids | Outbox | Jobs
> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const intent = yield* repo.findIntent(intentId);
    if (intent === null || intent.status !== "processing") return { _tag: "NothingToReconcile" as const };
    const attempt = yield* repo.findAttempt(intent.id, intent.attemptCount);
    if (attempt === null || (attempt.status !== "pending" && attempt.status !== "unknown")) return { _tag: "NothingToReconcile" as const };
    const found = yield* (yield* PaymentProvider).lookup(attempt.reference);
    const answer = found === null ? null : asAnswer(found);
    if (answer === null) return { _tag: "NotSeenByProvider" as const };
    const result = yield* (yield* Transactions).run(applyAttemptOutcome(actor, intent.id, attempt.number, Either.right(answer)));
    return { _tag: "Resolved" as const, outcome: result.outcome };
  }).pipe(withSpan("Payments.reconcileIntent"));
