/**
 * Command: refund part or all of a captured intent (POST /v1/refunds). Rule 5: the intent row
 * is locked while completed AND pending refunds are summed, so even many parallel refunds can
 * never take the total above the captured amount. The refund is recorded pending first, sent
 * to the provider outside the transaction under the refund's own reference, then completed
 * (with its ledger posting) or failed; a lost answer leaves it pending (202), never guessed.
 *
 * A refund requested under an Idempotency-Key keeps it (`requestKey`). The key is released when a
 * request fails after the provider was called (the recording failed, the caller went away), so a
 * retry under it finds that refund and resumes it under its own reference (the provider acts at
 * most once per reference) instead of making a second one that would be paid out again. The key
 * stays bound to that refund: a different refund under it is refused (422).
 *
 * The transaction that records the refund pending also schedules its resolution job
 * (ResolveRefund.ts), cancelled once the answer is applied: a refund whose answer is lost or
 * never recorded is settled by sending it again under its reference.
 */
import { Effect, Either } from "effect";
import { IdempotencyKeyReused, ValidationFailed, type Conflict, type CurrencyMismatch, type Forbidden, type NotFound } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider, type SettleResult } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { requireCurrency } from "./CurrencyCheck.js";
import { loadOwnedIntent, reloadIntent, saveIntent } from "./IntentRecords.js";
import { postLedger, refundPosting } from "./LedgerPostings.js";
import { emitRefundSucceeded } from "./PaymentEvents.js";
import { actorOf, requireMerchant } from "./MerchantAccess.js";
import { IllegalTransition, RefundExceedsCaptured, type ProviderOutcomeUnknown } from "./Errors.js";
import type { Refund } from "./model/Refund.js";
import { refundReference } from "./ProviderReferences.js";
import { fittingRefundAnswer } from "./ProviderRecordFit.js";
import { withSpan } from "../kernel/Span.js";
import { Jobs } from "../../ports/Jobs.js";
import { resolveRefundDelayMs, resolveRefundJobType } from "./ResolveRefundJobType.js";
import { PaymentIntentId, RefundId } from "./model/Ids.js";

/** Which intent, how much, and optionally in which currency. */
export interface CreateRefundInput {
  readonly intentId: PaymentIntentId;
  readonly amountMinor: number;
  readonly currency?: string;
  /** The caller's Idempotency-Key, when the request has one. */
  readonly requestKey?: string;
}

type RefundError =
  | Forbidden
  | NotFound
  | IllegalTransition
  | CurrencyMismatch
  | ValidationFailed
  | RefundExceedsCaptured
  | Conflict
  | IdempotencyKeyReused;

/** Refunds the caller's captured intent (scope refunds:write); answers the refund as it stands. */
export const createRefund = (
  principal: Principal,
  input: CreateRefundInput,
): Effect.Effect<Refund, RefundError, PaymentsRepository | Transactions | Ids | PaymentProvider | Outbox | Jobs> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "refunds:write");
    const transactions = yield* Transactions;
    const repo = yield* PaymentsRepository;
    const refund = yield* transactions.run(
      Effect.gen(function* () {
        const intent = yield* loadOwnedIntent(caller, input.intentId, true);
        if (input.requestKey !== undefined) {
          const earlier = yield* repo.findRefundByRequestKey(caller.merchantId, input.requestKey);
          if (earlier !== null) {
            const sameRequest =
              earlier.intentId === intent.id &&
              earlier.amountMinor === input.amountMinor &&
              (input.currency === undefined || input.currency === earlier.currency);
            if (!sameRequest) {
              return yield* Effect.fail(new IdempotencyKeyReused({ detail: "this Idempotency-Key was already used for a different refund" }));
            }
            return { refund: earlier, providerPaymentId: intent.providerPaymentId ?? "" };
          }
        }
        if (intent.status !== "succeeded") {
          return yield* Effect.fail(new IllegalTransition({ from: intent.status, trigger: "refund", detail: "Only a captured payment intent can be refunded." }));
        }
        yield* requireCurrency(intent.currency, input.currency);
        if (!Number.isSafeInteger(input.amountMinor) || input.amountMinor <= 0) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "amount_minor", message: "must be a positive amount of minor units" }] }));
        }
        // The intent row is locked: no other refund of it can be summed or inserted meanwhile.
        const committed = yield* repo.committedRefundsMinor(intent.id);
        const refundable = intent.amountCapturedMinor - committed;
        if (input.amountMinor > refundable) {
          return yield* Effect.fail(new RefundExceedsCaptured({ refundableMinor: refundable, detail: `At most ${refundable} can still be refunded.` }));
        }
        const id = RefundId.make(yield* (yield* Ids).next);
        const at = yield* now;
        const refund: Refund = {
          id,
          intentId: intent.id,
          merchantId: intent.merchantId,
          amountMinor: input.amountMinor,
          currency: intent.currency,
          status: "pending",
          reference: refundReference(id),
          failureReason: null,
          requestKey: input.requestKey ?? null,
          createdAt: at,
          updatedAt: at,
        };
        yield* repo.insertRefund(refund);
        yield* resolveRefundJobType.schedule({ refund_id: id }, { key: id, runAt: new Date(at.getTime() + resolveRefundDelayMs) });
        yield* audit({
          merchantId: intent.merchantId,
          actor: actorOf(caller),
          action: "refund.requested",
          subjectType: "refund",
          subjectId: id,
          reason: "merchant request",
          data: { payment_intent_id: intent.id, amount_minor: input.amountMinor },
        });
        return { refund, providerPaymentId: intent.providerPaymentId ?? "" };
      }),
    );
    // Resumed under its key and already resolved: nothing is sent again.
    if (refund.refund.status !== "pending") return refund.refund;
    const answer = yield* (yield* PaymentProvider)
      .refund({
        reference: refund.refund.reference,
        providerPaymentId: refund.providerPaymentId,
        amount: { amount_minor: refund.refund.amountMinor, currency: refund.refund.currency },
      })
      .pipe(Effect.either, Effect.map((answer) => fittingRefundAnswer(refund.refund, answer)));
    return yield* transactions.run(
      Effect.tap(applyRefundOutcome(actorOf(caller), refund.refund.id, answer), (settled) =>
        // A lost answer keeps the resolution job; an applied one leaves it nothing to do.
        settled.status === "pending" ? Effect.void : Effect.flatMap(Jobs, (jobs) => jobs.cancel(resolveRefundJobType.kind, settled.id)),
      ),
    );
  }).pipe(withSpan("Payments.createRefund"));

/** Completes or fails a pending refund from the provider's answer; a lost answer keeps it pending. */
export const applyRefundOutcome = (
  actor: string,
  refundId: RefundId,
  answer: Either.Either<SettleResult, ProviderOutcomeUnknown>,
): Effect.Effect<Refund, Conflict, PaymentsRepository | Ids | Outbox> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const found = yield* repo.findRefund(refundId);
    if (found === null) return yield* Effect.dieMessage(`refund ${refundId} vanished`);
    // Lock order everywhere: the intent first, then its refunds.
    const intent = yield* reloadIntent(found.intentId);
    const refund = (yield* repo.findRefund(refundId, { forUpdate: true })) ?? found;
    if (refund.status !== "pending" || Either.isLeft(answer)) return refund;
    const at = yield* now;
    const result = answer.right;
    const updated: Refund =
      result._tag === "Done"
        ? { ...refund, status: "succeeded", updatedAt: at }
        : { ...refund, status: "failed", failureReason: result.reason, updatedAt: at };
    // Posted before the move: the database checks the posting when the refund succeeds (migration 30).
    if (updated.status === "succeeded") yield* postLedger(refund.merchantId, refundPosting(refund.merchantId, refund.id, refund.amountMinor, refund.currency)).pipe(Effect.orDie);
    yield* repo.updateRefund(updated);
    if (updated.status === "succeeded") {
      const saved = yield* saveIntent(intent, { amountRefundedMinor: intent.amountRefundedMinor + refund.amountMinor }, at);
      yield* emitRefundSucceeded(updated, saved.version, actor);
    }
    yield* audit({
      merchantId: refund.merchantId,
      actor,
      action: "refund.resolved",
      subjectType: "refund",
      subjectId: refund.id,
      reason: `provider answered ${updated.status}`,
      data: { status: updated.status },
    });
    return updated;
  });
