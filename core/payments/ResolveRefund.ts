/**
 * Resolution of a refund left pending (spec rule 3 for refunds): its answer was lost, or never
 * recorded because the process stopped or the recording failed. The provider acts at most once
 * per reference, so the same refund request is sent again under the refund's own reference and
 * its answer applied as a live one would be (applyRefundOutcome). While the answer stays unknown
 * inside the ambiguity window another try is scheduled; once the window has passed a
 * reconciliation exception of kind `unresolved` is opened for a human (kind `amount`, with the
 * answer observed, when the provider answered for another amount than was sent). Nothing is guessed: the
 * pending amount stays counted against what can be refunded until the provider answers.
 */
import { Effect, Either } from "effect";
import type { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { PaymentProvider } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { ReconciliationSettings } from "../../ports/payments/ReconciliationSettings.js";
import { now } from "../kernel/Clock.js";
import type { Conflict } from "../kernel/Errors.js";
import { withSpan } from "../kernel/Span.js";
import { applyRefundOutcome } from "./CreateRefund.js";
import { nextCheckInWindow, reconcilerActor } from "./ReconciliationWindow.js";
import { openReconciliationException } from "./ReconciliationExceptions.js";
import { resolveRefundJobType } from "./ResolveRefundJobType.js";
import { fittingRefundAnswer } from "./ProviderRecordFit.js";
import { ambiguityWindowName } from "./model/ReconciliationException.js";
import type { RefundStatus } from "./model/Refund.js";

/** What one resolution did. */
export type RefundResolution =
  | { readonly _tag: "Resolved"; readonly status: RefundStatus }
  | { readonly _tag: "NothingToResolve" }
  | { readonly _tag: "RecheckScheduled"; readonly at: Date }
  | { readonly _tag: "ExceptionOpened"; readonly opened: boolean };

/** Settles refund `refundId` if it is still pending. */
export const resolveRefund = (
  refundId: string,
): Effect.Effect<
  RefundResolution,
  Conflict,
  PaymentsRepository | PaymentProvider | Transactions | Ids | Outbox | Jobs | ReconciliationRepository | ReconciliationSettings
> =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const refund = yield* repo.findRefund(refundId);
    if (refund === null || refund.status !== "pending") return { _tag: "NothingToResolve" as const };
    const intent = yield* repo.findIntent(refund.intentId);
    if (intent === null) return yield* Effect.dieMessage(`refund ${refund.id}: intent ${refund.intentId} vanished`);
    const answered = yield* (yield* PaymentProvider)
      .refund({
        reference: refund.reference,
        providerPaymentId: intent.providerPaymentId ?? "",
        amount: { amount_minor: refund.amountMinor, currency: refund.currency },
      })
      .pipe(Effect.either);
    const answer = fittingRefundAnswer(refund, answered);
    // The provider answered, for another amount than was sent: what a human is shown.
    const misfitMinor = Either.isLeft(answer) && Either.isRight(answered) && answered.right._tag === "Done" ? answered.right.amountMinor : null;
    const transactions = yield* Transactions;
    if (Either.isRight(answer)) {
      const applied = yield* transactions.run(applyRefundOutcome(reconcilerActor, refund.id, answer));
      return applied.status === "pending" ? { _tag: "NothingToResolve" as const } : { _tag: "Resolved" as const, status: applied.status };
    }
    const settings = yield* ReconciliationSettings;
    const at = yield* now;
    const next = nextCheckInWindow(refund.createdAt, at, settings);
    if (next !== null) {
      // A key of its own: the running job still holds the refund's key until it completes.
      yield* transactions.run(resolveRefundJobType.schedule({ refund_id: refund.id }, { key: `${refund.id}:recheck:${next.getTime()}`, runAt: next }));
      return { _tag: "RecheckScheduled" as const, at: next };
    }
    const opened = yield* transactions.run(
      openReconciliationException(
        {
          merchantId: refund.merchantId,
          providerObject: refund.reference,
          settlementWindow: ambiguityWindowName,
          kind: misfitMinor === null ? "unresolved" : "amount",
          subjectType: "refund",
          subjectId: refund.id,
          expected: { status: "pending", amount_minor: refund.amountMinor },
          observed: misfitMinor === null ? null : { status: "succeeded", amount_minor: misfitMinor },
          currency: refund.currency,
        },
        reconcilerActor,
        misfitMinor === null
          ? `the provider gave no answer for refund ${refund.reference} within the ${Math.round(settings.ambiguityWindowMs / 1000)} s resolution window`
          : `the provider answered ${misfitMinor} for refund ${refund.reference} of ${refund.amountMinor}; not applied`,
      ),
    );
    return { _tag: "ExceptionOpened" as const, opened };
  }).pipe(withSpan("Payments.resolveRefund"));

/** Refund resolution as a durable job. */
export const resolveRefundJob = resolveRefundJobType.handledBy(({ refund_id }) => Effect.asVoid(resolveRefund(refund_id)));
