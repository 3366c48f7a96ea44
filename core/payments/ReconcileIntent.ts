/**
 * Provider status reconciliation of one intent (spec rule 3): an intent left in processing by
 * a lost provider answer, or waiting in requires_action when the webhook of the customer's
 * authentication was lost, is resolved by asking the provider what it did under the attempt's
 * stable reference, then applying that answer exactly as a live answer would be. When the
 * provider never saw the reference nothing is guessed: the intent stays processing, and the
 * caller (a durable job) asks again later. Opening a reconciliation exception once the
 * resolution window has passed is ReconciliationWindow.ts. An intent in requires_capture whose
 * capture's or void's answer was lost is looked up the same way (by its attempt's reference): a
 * capture the provider made is applied with its ledger posting, a voided authorization cancels
 * the intent; an authorization still held changes nothing.
 */
import { Effect, Either } from "effect";
import type { Conflict } from "../kernel/Errors.js";
import type { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { applyAttemptOutcome, type ConfirmOutcome } from "./ConfirmIntent.js";
import { applyCapture } from "./CaptureIntent.js";
import { applyCancel } from "./CancelIntent.js";
import { answerOfProviderPayment } from "./ProviderPaymentAnswer.js";
import { recordMismatch } from "./ProviderRecordFit.js";
import { openReconciliationException } from "./ReconciliationExceptions.js";
import { ambiguityWindowName, type MismatchKind } from "./model/ReconciliationException.js";
import type { ProviderPayment } from "../../ports/payments/PaymentProvider.js";
import type { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import type { IllegalTransition, ProviderOutcomeUnknown } from "./Errors.js";
import { withSpan } from "../kernel/Span.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";

/** What reconciliation found. */
export type ReconcileOutcome =
  | { readonly _tag: "Resolved"; readonly outcome: ConfirmOutcome }
  | { readonly _tag: "NotSeenByProvider" }
  /** The intent waits in requires_action and the provider still waits for the customer. */
  | { readonly _tag: "AwaitingCustomer" }
  /** The provider voided the held authorization (or the payment waiting for authentication): the intent was canceled. */
  | { readonly _tag: "Voided" }
  | { readonly _tag: "NothingToReconcile" }
  /** The provider's record does not fit the intent (currency, amount): an exception for a human, nothing applied. */
  | { readonly _tag: "MismatchFound"; readonly opened: boolean };

/** Reconciles intent `intentId` with the provider; `actor` is audited (a system name). */
export const reconcileIntent = (
  intentId: string,
  actor = "system:reconciliation",
): Effect.Effect<
  ReconcileOutcome,
  ProviderOutcomeUnknown | IllegalTransition | Conflict,
  PaymentsRepository | PaymentProvider | Transactions | Ids | Outbox | Jobs | ReconciliationRepository
> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const intent = yield* repo.findIntent(intentId);
    if (intent !== null && intent.status === "requires_capture") return yield* reconcileCapture(intent, actor);
    if (intent === null || (intent.status !== "processing" && intent.status !== "requires_action")) return { _tag: "NothingToReconcile" as const };
    const attempt = yield* repo.findAttempt(intent.id, intent.attemptCount);
    const awaitsAnswer = intent.status === "processing" && attempt !== null && (attempt.status === "pending" || attempt.status === "unknown");
    const awaitsAction = intent.status === "requires_action" && attempt !== null && attempt.status === "requires_action";
    if (attempt === null || (!awaitsAnswer && !awaitsAction)) return { _tag: "NothingToReconcile" as const };
    const found = yield* (yield* PaymentProvider).lookup(attempt.reference);
    const mismatch = found === null ? null : recordMismatch(intent, found);
    if (found !== null && mismatch !== null) return yield* openRecordMismatch(intent, attempt.reference, found, mismatch, actor);
    const answer = found === null ? null : answerOfProviderPayment(found);
    if (awaitsAction && found !== null && found.status === "voided") {
      // The payment waiting for authentication was canceled at the provider (a cancel whose answer was lost).
      yield* (yield* Transactions).run(applyCancel(actor, intent.id, "provider record: the payment was canceled"));
      return { _tag: "Voided" as const };
    }
    if (awaitsAction && (answer === null || answer._tag === "RequiresAction")) return { _tag: "AwaitingCustomer" as const };
    if (answer === null) return { _tag: "NotSeenByProvider" as const };
    const result = yield* (yield* Transactions).run(applyAttemptOutcome(actor, intent.id, attempt.number, Either.right(answer)));
    return { _tag: "Resolved" as const, outcome: result.outcome };
  }).pipe(withSpan("Payments.reconcileIntent"));

/**
 * A held authorization whose capture or void may have happened (its answer was lost): the
 * provider's record under the attempt's reference says. Captured: the capture is applied, with
 * its posting, as a live answer would be. Voided: the intent is canceled (nothing can be captured
 * any more). Anything else (still authorized, never seen): nothing.
 */
const reconcileCapture = (intent: PaymentIntent, actor: string) =>
  Effect.gen(function* () {
    const attempt = yield* (yield* PaymentsRepository).findAttempt(intent.id, intent.attemptCount);
    if (attempt === null) return { _tag: "NothingToReconcile" as const };
    const found = yield* (yield* PaymentProvider).lookup(attempt.reference);
    const mismatch = found === null ? null : recordMismatch(intent, found);
    if (found !== null && (mismatch !== null || (found.status === "captured" && found.capturedMinor > intent.amountCapturableMinor))) {
      return yield* openRecordMismatch(intent, attempt.reference, found, mismatch ?? "amount", actor);
    }
    const captured =
      found !== null &&
      found.status === "captured" &&
      found.amount.currency === intent.currency &&
      found.capturedMinor > 0 &&
      found.capturedMinor <= intent.amountCapturableMinor;
    if (found !== null && found.status === "voided") {
      yield* (yield* Transactions).run(applyCancel(actor, intent.id, "provider record: the authorization was voided"));
      return { _tag: "Voided" as const };
    }
    if (!captured) return { _tag: "NothingToReconcile" as const };
    const saved = yield* (yield* Transactions).run(applyCapture(actor, intent.id, found.capturedMinor, "provider record of the capture"));
    return { _tag: "Resolved" as const, outcome: saved.status === "succeeded" ? ("succeeded" as const) : ("requires_capture" as const) };
  });

/** Opens the exception of a provider record that does not fit the intent (once per reference and window); nothing is applied. */
const openRecordMismatch = (intent: PaymentIntent, reference: string, found: ProviderPayment, kind: MismatchKind, actor: string) =>
  Effect.map(
    Effect.flatMap(Transactions, (transactions) =>
      transactions.run(
        openReconciliationException(
          {
            merchantId: intent.merchantId,
            providerObject: reference,
            settlementWindow: ambiguityWindowName,
            kind,
            subjectType: "payment_intent",
            subjectId: intent.id,
            expected: { status: intent.status, amount_minor: intent.amountMinor, currency: intent.currency },
            observed: { status: found.status, amount_minor: found.amount.amount_minor, captured_minor: found.capturedMinor, currency: found.amount.currency },
            currency: intent.currency,
          },
          actor,
          `the provider's record of ${reference} does not fit the payment intent (${kind})`,
        ),
      ),
    ),
    (opened) => ({ _tag: "MismatchFound" as const, opened }),
  );
