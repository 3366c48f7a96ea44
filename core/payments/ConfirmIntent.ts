/**
 * Command: confirm an intent (POST /v1/payment-intents/:id/confirm), in three steps so the
 * provider call happens OUTSIDE any database transaction (spec rule 2):
 *   1. in a transaction: lock the intent, record a new attempt under a stable provider
 *      reference derived from the intent and the attempt number, move the intent to processing;
 *   2. call the provider with that reference;
 *   3. in a transaction: apply the answer with its ledger posting.
 * An ambiguous answer (timeout) leaves the intent in processing with the attempt `unknown`,
 * never guessed (rule 3). Confirming again then re-sends the SAME attempt and reference, so the
 * provider answers with what it already did and never charges twice. An attempt whose answer is
 * never recorded at all (the process stops during the call, step 3's transaction fails) is found
 * by the sweep of UnrecordedAnswers.ts, marked `unknown` and reconciled the same way.
 * While a risk analyst holds the intent (RiskHolds.ts), a new attempt and the re-sending of an
 * unknown one are refused with 409 `intent_on_hold`; continuing one in requires_action (a
 * lookup, no new provider action) is not.
 * An intent declined too often within the hour takes no new attempt (ConfirmRisk.ts, 429).
 * Confirming an intent in requires_action continues it: the provider is asked, by the attempt's
 * reference, whether the customer has authenticated, and its answer is applied (its webhook may
 * be lost); entering requires_action also schedules a reconcile job that asks the same.
 */
import { Effect, Either } from "effect";
import type { Conflict, Forbidden, NotFound, ValidationFailed } from "../kernel/Errors.js";
import { requirePaymentMethodToken } from "./CreateIntent.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider, type AuthorizeResult } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { RiskHolds } from "../../ports/payments/RiskHolds.js";
import { requireNotHeld } from "./RiskHolds.js";
import { requireConfirmRiskBelowBound, type ConfirmRiskTooHigh } from "./ConfirmRisk.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { reconcileIntentJobType } from "./ReconcileIntentJobType.js";
import { loadOwnedIntent, reloadIntent, saveIntent } from "./IntentRecords.js";
import { transition, type IntentTrigger } from "./IntentStatus.js";
import { type IntentStatus } from "./model/PaymentIntent.js";
import { capturePosting, postLedger } from "./LedgerPostings.js";
import { emitPaymentSucceeded } from "./PaymentEvents.js";
import { actorOf, requireConfirmer, type MerchantCaller } from "./MerchantAccess.js";
import { IllegalTransition, PaymentMethodRequired, ProviderOutcomeUnknown } from "./Errors.js";
import { answerFitsIntent } from "./ProviderRecordFit.js";
import type { AttemptStatus, PaymentAttempt } from "./model/PaymentAttempt.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import { attemptReference } from "./ProviderReferences.js";
import { answerOfProviderPayment } from "./ProviderPaymentAnswer.js";
import { withSpan } from "../kernel/Span.js";
import { PaymentAttemptId, PaymentIntentId } from "./model/Ids.js";

/** How a confirm ended, for the caller to answer 200, 202 or 402. */
export type ConfirmOutcome = "succeeded" | "requires_capture" | "requires_action" | "declined" | "processing";

/** The intent after the confirm and how it ended. */
export interface ConfirmResult {
  readonly intent: PaymentIntent;
  readonly outcome: ConfirmOutcome;
  readonly declineCode: string | null;
}

/** What the caller supplies: the payment method token, unless one is attached already. */
export interface ConfirmIntentInput {
  readonly paymentMethod?: string;
}

type Services = PaymentsRepository | RiskHolds | Transactions | Ids | PaymentProvider | Outbox | Jobs;

/** The job that asks the provider, by our reference, what became of an unknown attempt. */
export { reconcileIntentJobKind } from "./ReconcileIntentJobType.js";

/** How long after a lost answer the reconciliation job first asks the provider. */
export const reconcileDelayMs = 30_000;

/** Confirms the caller's intent (a merchant with payments:write, or the customer holding its client secret). */
export const confirmIntent = (
  principal: Principal,
  intentId: PaymentIntentId,
  input: ConfirmIntentInput,
): Effect.Effect<ConfirmResult, Forbidden | NotFound | IllegalTransition | PaymentMethodRequired | ConfirmRiskTooHigh | Conflict | ValidationFailed, Services> =>
  Effect.gen(function* () {
    const caller = yield* requireConfirmer(principal, intentId);
    // Never stored nor sent unless it is a provider token (raw card data is refused, not echoed).
    yield* requirePaymentMethodToken(input.paymentMethod);
    const transactions = yield* Transactions;
    const provider = yield* PaymentProvider;
    const { intent, attempt, continues } = yield* transactions.run(startAttempt(caller, intentId, input.paymentMethod));
    if (continues) {
      // The customer was asked to authenticate: ask the provider what became of the attempt (its
      // webhook may be lost) and apply that; while it still waits, the intent stays requires_action.
      const found = yield* provider.lookup(attempt.reference).pipe(Effect.orElseSucceed(() => null));
      const answer = found === null ? null : answerOfProviderPayment(found);
      if (answer === null || answer._tag === "RequiresAction") {
        return { intent, outcome: outcomeOf(intent.status, intent.lastDeclineCode), declineCode: intent.lastDeclineCode };
      }
      return yield* transactions.run(applyAttemptOutcome(actorOf(caller), intent.id, attempt.number, Either.right(answer)));
    }
    const answer = yield* provider
      .authorize({
        reference: attempt.reference,
        amount: { amount_minor: intent.amountMinor, currency: intent.currency },
        paymentMethod: attempt.paymentMethod,
        capture: intent.captureMethod === "automatic",
      })
      .pipe(Effect.either);
    return yield* transactions.run(applyAttemptOutcome(actorOf(caller), intent.id, attempt.number, answer));
  }).pipe(withSpan("Payments.confirmIntent"));

/** Step 1: a new attempt (or the unknown one again) with the intent moved to processing. */
const startAttempt = (caller: MerchantCaller, intentId: string, paymentMethod: string | undefined) =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const intent = yield* loadOwnedIntent(caller, intentId, true);
    const at = yield* now;
    if (intent.status === "requires_action") {
      const waiting = yield* repo.findAttempt(intent.id, intent.attemptCount);
      if (waiting === null) {
        return yield* Effect.fail(new IllegalTransition({ from: intent.status, trigger: "confirm", detail: "The payment intent has no attempt to continue." }));
      }
      yield* transition(intent.status, "confirm");
      return { intent, attempt: waiting, continues: true };
    }
    if (intent.status === "processing") {
      const latest = yield* repo.findAttempt(intent.id, intent.attemptCount);
      // Only an attempt whose answer was lost is re-sent; one still pending is in flight.
      if (latest === null || latest.status !== "unknown") {
        return yield* Effect.fail(
          new IllegalTransition({ from: intent.status, trigger: "confirm", detail: "The payment intent is already being confirmed." }),
        );
      }
      yield* transition(intent.status, "retry_unknown");
      // Re-sending may reach the provider for the first time: a hold stops it as it stops a new attempt.
      yield* requireNotHeld(intent);
      yield* audit({
        merchantId: intent.merchantId,
        actor: actorOf(caller),
        action: "payment_intent.attempt_retried",
        subjectType: "payment_intent",
        subjectId: intent.id,
        reason: "outcome of the previous call unknown; re-sent under the same reference",
        data: { attempt: latest.number },
      });
      return { intent, attempt: latest, continues: false };
    }
    const next = yield* transition(intent.status, "confirm");
    yield* requireNotHeld(intent);
    yield* requireConfirmRiskBelowBound(intent);
    const method = paymentMethod ?? intent.paymentMethod;
    if (method === null) {
      return yield* Effect.fail(new PaymentMethodRequired({ detail: "Confirm needs a payment_method token." }));
    }
    const number = intent.attemptCount + 1;
    const attempt: PaymentAttempt = {
      id: PaymentAttemptId.make(yield* (yield* Ids).next),
      intentId: intent.id,
      merchantId: intent.merchantId,
      number,
      reference: attemptReference(intent.id, number),
      paymentMethod: method,
      status: "pending",
      providerPaymentId: null,
      declineCode: null,
      createdAt: at,
      updatedAt: at,
    };
    yield* repo.insertAttempt(attempt);
    const saved = yield* saveIntent(intent, { status: next, attemptCount: number, paymentMethod: method, lastDeclineCode: null }, at);
    yield* audit({
      merchantId: intent.merchantId,
      actor: actorOf(caller),
      action: "payment_intent.confirm_started",
      subjectType: "payment_intent",
      subjectId: intent.id,
      reason: caller.customerOfIntent === undefined ? "merchant request" : "customer request with the client secret",
      data: { attempt: number, reference: attempt.reference },
    });
    return { intent: saved, attempt, continues: false };
  });

const outcomeOf = (status: IntentStatus, declineCode: string | null): ConfirmOutcome =>
  status === "succeeded"
    ? "succeeded"
    : status === "requires_capture"
      ? "requires_capture"
      : status === "requires_action"
        ? "requires_action"
        : status === "requires_payment_method" && declineCode !== null
          ? "declined"
          : "processing";

/** What a provider answer means for the intent and the attempt. */
const interpret = (
  answer: Either.Either<AuthorizeResult, ProviderOutcomeUnknown>,
): { trigger: IntentTrigger; attempt: AttemptStatus; providerPaymentId: string | null; capturedMinor: number; declineCode: string | null } => {
  if (Either.isLeft(answer)) {
    return { trigger: "provider_outcome_unknown", attempt: "unknown", providerPaymentId: null, capturedMinor: 0, declineCode: null };
  }
  const result = answer.right;
  switch (result._tag) {
    case "Authorized":
      return result.capturedMinor > 0
        ? { trigger: "provider_captured", attempt: "captured", providerPaymentId: result.providerPaymentId, capturedMinor: result.capturedMinor, declineCode: null }
        : { trigger: "provider_authorized", attempt: "authorized", providerPaymentId: result.providerPaymentId, capturedMinor: 0, declineCode: null };
    case "RequiresAction":
      return { trigger: "provider_requires_action", attempt: "requires_action", providerPaymentId: result.providerPaymentId, capturedMinor: 0, declineCode: null };
    case "Declined":
      return { trigger: "provider_declined", attempt: "declined", providerPaymentId: null, capturedMinor: 0, declineCode: result.declineCode };
  }
};

/**
 * Step 3: applies the provider's answer to attempt `number`, with the capture's ledger posting
 * in the same transaction. An attempt already resolved (by a concurrent retry) changes nothing.
 * An authorization makes the intent's amount capturable, or `heldMinor` when the provider held
 * less (a partial authorization, applied only from a resolved reconciliation exception).
 */
export const applyAttemptOutcome = (
  actor: string,
  intentId: string,
  number: number,
  answer: Either.Either<AuthorizeResult, ProviderOutcomeUnknown>,
  heldMinor?: number,
): Effect.Effect<ConfirmResult, IllegalTransition | Conflict, PaymentsRepository | Ids | Outbox | Jobs> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const intent = yield* reloadIntent(intentId);
    const attempt = yield* repo.findAttempt(intentId, number);
    const unresolved = attempt !== null && intent.status === "processing" && (attempt.status === "pending" || attempt.status === "unknown");
    const awaitingAction = attempt !== null && intent.status === "requires_action" && attempt.status === "requires_action";
    // An answer charging more than the intent is not applied as it stands: its outcome is not known.
    const fits = Either.isLeft(answer) || answerFitsIntent(intent, answer.right);
    const meaning = interpret(fits ? answer : Either.left(new ProviderOutcomeUnknown({ operation: "authorize", detail: "The provider's answer does not fit the payment intent." })));
    const stillWaiting = awaitingAction && (meaning.trigger === "provider_requires_action" || meaning.trigger === "provider_outcome_unknown");
    if (attempt === null || (!unresolved && !awaitingAction) || stillWaiting || intent.attemptCount !== number) {
      return { intent, outcome: outcomeOf(intent.status, intent.lastDeclineCode), declineCode: intent.lastDeclineCode };
    }
    const next = yield* transition(intent.status, meaning.trigger);
    const at = yield* now;
    yield* repo.updateAttempt({
      ...attempt,
      status: meaning.attempt,
      providerPaymentId: meaning.providerPaymentId,
      declineCode: meaning.declineCode,
      updatedAt: at,
    });
    if (meaning.trigger === "provider_outcome_unknown") {
      if (!fits) {
        yield* audit({
          merchantId: intent.merchantId,
          actor,
          action: "payment_intent.answer_not_applied",
          subjectType: "payment_intent",
          subjectId: intent.id,
          reason: "the provider's answer charged more than the payment intent's amount",
          data: { attempt: number },
        });
      }
      // Never guessed: a durable job asks the provider later by the same reference.
      yield* reconcileIntentJobType.schedule({ intent_id: intent.id }, { key: intent.id, runAt: new Date(at.getTime() + reconcileDelayMs) });
      return { intent, outcome: "processing" as const, declineCode: null };
    }
    // Posted before the move: the database checks the posting when the intent succeeds (migration 30).
    if (meaning.capturedMinor > 0) yield* postLedger(intent.merchantId, capturePosting(intent.merchantId, intent.id, meaning.capturedMinor, intent.currency)).pipe(Effect.orDie);
    const saved = yield* saveIntent(
      intent,
      {
        status: next,
        providerPaymentId: meaning.providerPaymentId,
        amountCapturedMinor: meaning.capturedMinor,
        amountCapturableMinor: meaning.trigger === "provider_authorized" ? Math.min(heldMinor ?? intent.amountMinor, intent.amountMinor) : 0,
        lastDeclineCode: meaning.declineCode,
        // A declined token is detached, so the intent waits for another payment method.
        paymentMethod: meaning.trigger === "provider_declined" ? null : intent.paymentMethod,
      },
      at,
    );
    if (meaning.capturedMinor > 0) yield* emitPaymentSucceeded(saved, actor);
    if (next === "requires_action") {
      // Should the webhook of the customer's authentication be lost, this job asks the provider.
      yield* reconcileIntentJobType.schedule(
        { intent_id: intent.id },
        { key: `${intent.id}:action:${number}`, runAt: new Date(at.getTime() + reconcileDelayMs) },
      );
    }
    yield* audit({
      merchantId: intent.merchantId,
      actor,
      action: "payment_intent.attempt_resolved",
      subjectType: "payment_intent",
      subjectId: intent.id,
      reason: `provider answered ${meaning.attempt}`,
      data: { attempt: number, status: next, decline_code: meaning.declineCode },
    });
    return { intent: saved, outcome: outcomeOf(saved.status, saved.lastDeclineCode), declineCode: meaning.declineCode };
  });
