/**
 * Settles the payment intent of a reconciliation exception resolved with `settle_intent` (spec:
 * ambiguous outcomes are "never guessed"; a mismatch is "resolved by humans"). A keyed job
 * (`exception:<id>`) runs it after the resolution commits: it looks the attempt's reference up at
 * the provider again and
 * - applies a record that fits the intent as a live answer would be (ConfirmIntent step 3);
 * - applies a hold or capture below the intent in its currency: a hold as a partial authorization
 *   (capturable = what the provider holds), a capture as it stands;
 * - gives back a hold or capture above the intent or in another currency (a void or a refund under
 *   `exception:<id>/void|refund`, once per exception at the provider), then moves the intent
 *   `processing -> requires_payment_method` with the attempt declined;
 * - releases the intent the same way when the provider still has no record (or voided it);
 * - when the provider refuses that void or refund, opens a `status` exception on its object
 *   (`exception:<id>/void|refund`, once) for a human, records the refusal as the exception's
 *   `settled` outcome (a later run does nothing) and finishes; the intent stays processing.
 * Each step is audited with the exception as reason, and an applied or released intent appends the
 * exception's `settled` outcome (with the capture's ledger source when it posted one). Its durable outcome is the intent's and the
 * attempt's state: a run that finds the intent no longer processing does nothing, and a run after a
 * lost answer asks the provider again under the same reference (which never acts twice).
 */
import { Effect, Either } from "effect";
import type { Conflict } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider, type AuthorizeResult, type ProviderPayment } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { now } from "../kernel/Clock.js";
import { withSpan } from "../kernel/Span.js";
import { audit } from "./Audit.js";
import { applyAttemptOutcome, type ConfirmOutcome } from "./ConfirmIntent.js";
import type { IllegalTransition, ProviderOutcomeUnknown } from "./Errors.js";
import { captureSource } from "./LedgerPostings.js";
import { answerOfProviderPayment } from "./ProviderPaymentAnswer.js";
import { recordMismatch } from "./ProviderRecordFit.js";
import { openReconciliationException } from "./ReconciliationExceptions.js";
import { reconcilerActor } from "./ReconciliationWindow.js";
import { settleIntentJobType, settleIntentReference, type GiveBack } from "./SettleIntentJobType.js";
import { ReconciliationOutcomeId } from "./model/Ids.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import { ambiguityWindowName, type ReconciliationException } from "./model/ReconciliationException.js";

/** The audit actor of the settlement: the reconcilers'. */
const settleIntentActor = reconcilerActor;

/** How a released intent's money was left: given back at the provider, or never held. */
export type ReleaseCause = "voided" | "refunded" | "not_found";

/** What one run did. */
export type SettleIntentOutcome =
  | { readonly _tag: "NothingToSettle" }
  | { readonly _tag: "Applied"; readonly outcome: ConfirmOutcome; readonly partial: boolean }
  | { readonly _tag: "Released"; readonly cause: ReleaseCause }
  | { readonly _tag: "GiveBackRefused"; readonly operation: GiveBack; readonly opened: boolean };


/** The decline code a released attempt records. */
export const releasedDeclineCode = "reconciliation_released";

/** Settles the intent of exception `exceptionId` (see the file comment). */
export const settleIntent = (
  exceptionId: string,
): Effect.Effect<
  SettleIntentOutcome,
  ProviderOutcomeUnknown | IllegalTransition | Conflict,
  PaymentsRepository | PaymentProvider | Transactions | Ids | Outbox | Jobs | ReconciliationRepository
> =>
  Effect.gen(function* () {
    const exception = yield* (yield* ReconciliationRepository).findException(exceptionId);
    if (exception === null || exception.status !== "resolved" || exception.resolution?.["kind"] !== "settle_intent" || exception.subjectId === null) {
      return { _tag: "NothingToSettle" as const };
    }
    // A recorded settlement (a refusal handed to a human) is final.
    if ((yield* (yield* ReconciliationRepository).listOutcomes(exception.id)).some((o) => o.action === "settled")) return { _tag: "NothingToSettle" as const };
    const repo = yield* PaymentsRepository;
    const intent = yield* repo.findIntent(exception.subjectId);
    if (intent === null || intent.status !== "processing" || intent.merchantId !== exception.merchantId) return { _tag: "NothingToSettle" as const };
    const attempt = yield* repo.findAttempt(intent.id, intent.attemptCount);
    if (attempt === null || (attempt.status !== "pending" && attempt.status !== "unknown")) return { _tag: "NothingToSettle" as const };
    const provider = yield* PaymentProvider;
    const found = yield* provider.lookup(attempt.reference);
    if (found === null) return yield* release(exception, intent, attempt.number, "not_found");
    const answer = answerOfProviderPayment(found);
    if (answer === null) return yield* release(exception, intent, attempt.number, "voided");
    if (recordMismatch(intent, found) === null) return yield* apply(exception, intent, attempt.number, answer, undefined);
    if (isBelowIntent(intent, found)) {
      return yield* apply(exception, intent, attempt.number, answer, found.status === "authorized" ? found.amount.amount_minor : undefined);
    }
    // Above the intent or in another currency: nothing of it is ours to keep.
    const operation: GiveBack = found.status === "captured" ? "refund" : "void";
    const providerPaymentId = found.providerPaymentId ?? "";
    const given =
      operation === "refund"
        ? yield* provider.refund({
            reference: settleIntentReference(exception.id, "refund"),
            providerPaymentId,
            amount: { amount_minor: found.capturedMinor, currency: found.amount.currency },
          })
        : yield* provider.void({ reference: settleIntentReference(exception.id, "void"), providerPaymentId });
    if (given._tag === "Rejected") return yield* giveBackRefused(exception, intent, found, operation, given.reason);
    return yield* release(exception, intent, attempt.number, operation === "refund" ? "refunded" : "voided");
  }).pipe(withSpan("Payments.settleIntent"));

/** A hold or capture in the intent's currency of less than the intent, capturing no more than it holds. */
const isBelowIntent = (intent: PaymentIntent, found: ProviderPayment): boolean =>
  found.amount.currency === intent.currency &&
  found.amount.amount_minor > 0 &&
  found.amount.amount_minor < intent.amountMinor &&
  found.capturedMinor >= 0 &&
  found.capturedMinor <= found.amount.amount_minor;

const reasonOf = (exception: ReconciliationException) => `reconciliation exception ${exception.id} resolved with settle_intent`;

/** Appends the exception's `settled` outcome (payments migration 31), in the settling transaction. */
const recordSettled = (exception: ReconciliationException, ledgerSource: string | null, data: Readonly<Record<string, unknown>>) =>
  Effect.gen(function* () {
    yield* (yield* ReconciliationRepository).appendOutcome({
      id: ReconciliationOutcomeId.make(yield* (yield* Ids).next),
      exceptionId: exception.id,
      merchantId: exception.merchantId,
      action: "settled",
      actor: settleIntentActor,
      reason: reasonOf(exception),
      ledgerSource,
      data,
      createdAt: yield* now,
    });
  });

/** Applies the provider's record (a partial authorization when `heldMinor` is given), audited with the exception. */
const apply = (exception: ReconciliationException, intent: PaymentIntent, number: number, answer: AuthorizeResult, heldMinor: number | undefined) =>
  Effect.flatMap(Transactions, (transactions) =>
    transactions.run(
      Effect.gen(function* () {
        const result = yield* applyAttemptOutcome(settleIntentActor, intent.id, number, Either.right(answer), heldMinor);
        if (result.intent.status !== "processing") {
          yield* audit({
            merchantId: intent.merchantId,
            actor: settleIntentActor,
            action: "payment_intent.settled_from_exception",
            subjectType: "payment_intent",
            subjectId: intent.id,
            reason: reasonOf(exception),
            data: { exception_id: exception.id, attempt: number, status: result.intent.status, partial: heldMinor !== undefined, held_minor: heldMinor ?? null },
          });
          yield* recordSettled(exception, result.intent.status === "succeeded" ? captureSource(intent.id) : null, {
            result: "applied",
            intent_id: intent.id,
            attempt: number,
            status: result.intent.status,
            partial: heldMinor !== undefined,
            held_minor: heldMinor ?? null,
          });
        }
        return { _tag: "Applied" as const, outcome: result.outcome, partial: heldMinor !== undefined };
      }),
    ),
  );

/** Moves the intent to requires_payment_method with its attempt declined, audited with the exception and the cause. */
const release = (exception: ReconciliationException, intent: PaymentIntent, number: number, cause: ReleaseCause) =>
  Effect.flatMap(Transactions, (transactions) =>
    transactions.run(
      Effect.gen(function* () {
        const result = yield* applyAttemptOutcome(settleIntentActor, intent.id, number, Either.right({ _tag: "Declined", declineCode: releasedDeclineCode }));
        if (result.intent.status === "requires_payment_method") {
          yield* audit({
            merchantId: intent.merchantId,
            actor: settleIntentActor,
            action: "payment_intent.released_from_exception",
            subjectType: "payment_intent",
            subjectId: intent.id,
            reason: reasonOf(exception),
            data: { exception_id: exception.id, attempt: number, cause },
          });
          yield* recordSettled(exception, null, { result: "released", cause, intent_id: intent.id, attempt: number, status: result.intent.status });
        }
        return { _tag: "Released" as const, cause };
      }),
    ),
  );

/**
 * Opens (once per give-back object) the `status` exception of a void or refund the provider refused,
 * and records the refusal as the exception's `settled` outcome, in one transaction.
 */
const giveBackRefused = (exception: ReconciliationException, intent: PaymentIntent, found: ProviderPayment, operation: GiveBack, refusal: string) =>
  Effect.flatMap(Transactions, (transactions) =>
    transactions.run(
      Effect.gen(function* () {
        const object = settleIntentReference(exception.id, operation);
        const opened = yield* openReconciliationException(
          {
            merchantId: intent.merchantId,
            providerObject: object,
            settlementWindow: ambiguityWindowName,
            kind: "status",
            subjectType: "payment_intent",
            subjectId: intent.id,
            expected: { status: operation === "void" ? "voided" : "refunded", exception_id: exception.id, reference: found.reference },
            observed: { status: found.status, amount_minor: found.amount.amount_minor, captured_minor: found.capturedMinor, currency: found.amount.currency, refused: refusal },
            currency: found.amount.currency,
          },
          settleIntentActor,
          `the provider refused the ${operation} of ${found.reference} asked by ${reasonOf(exception)} (${refusal})`,
        );
        yield* recordSettled(exception, null, { result: "give_back_refused", intent_id: intent.id, operation, refused: refusal, opened_on: object });
        return { _tag: "GiveBackRefused" as const, operation, opened };
      }),
    ),
  );

/** The settlement as a durable job: a provider that does not answer fails it, and the runner retries. */
export const settleIntentJob = settleIntentJobType.handledBy(({ exception_id }) => Effect.asVoid(settleIntent(exception_id)));
