/**
 * The ambiguity-resolution window (spec rule 3, Limits). A processing intent whose provider
 * answer was lost is looked up by our reference (reconcileIntent). While the provider has not
 * seen the reference and the window since the attempt started is open, another check is
 * scheduled (a durable job, never a guess); once the window has passed, a reconciliation
 * exception of kind `unresolved` is opened for a human instead of retrying forever. The intent
 * stays processing: nothing is assumed about money that may or may not have moved.
 */
import { Effect } from "effect";
import type { Conflict } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import type { PaymentProvider } from "../../ports/payments/PaymentProvider.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { ReconciliationSettings } from "../../ports/payments/ReconciliationSettings.js";
import { now } from "../kernel/Clock.js";
import { reconcileIntentJobType } from "./ReconcileIntentJobType.js";
import type { IllegalTransition, ProviderOutcomeUnknown } from "./Errors.js";
import { reconcileIntent, type ReconcileOutcome } from "./ReconcileIntent.js";
import { openReconciliationException } from "./ReconciliationExceptions.js";
import { ambiguityWindowName } from "./model/ReconciliationException.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import { withSpan } from "../kernel/Span.js";

/** The audit actor of the reconcilers. */
export const reconcilerActor = "system:reconciliation";

export { reconcileIntentJobKind } from "./ReconcileIntentJobType.js";

/** What one check did. */
export type WindowedReconcileOutcome =
  | ReconcileOutcome
  | { readonly _tag: "RecheckScheduled"; readonly at: Date }
  | { readonly _tag: "ExceptionOpened"; readonly opened: boolean };

/**
 * When to ask the provider again about something that started at `startedAt` and is still
 * unanswered at `at`: one re-check interval later, but not past the ambiguity window; null once
 * the window has passed (a human looks: an `unresolved` exception).
 */
export const nextCheckInWindow = (startedAt: Date, at: Date, settings: ReconciliationSettings): Date | null => {
  const deadline = startedAt.getTime() + settings.ambiguityWindowMs;
  return at.getTime() < deadline ? new Date(Math.min(at.getTime() + settings.recheckIntervalMs, deadline)) : null;
};

/**
 * Reconciles intent `intentId` within the ambiguity window: resolved from the provider's
 * record, re-checked later while the window is open, or an exception once it has passed.
 */
export const reconcileIntentWithinWindow = (
  intentId: string,
): Effect.Effect<
  WindowedReconcileOutcome,
  ProviderOutcomeUnknown | IllegalTransition | Conflict,
  PaymentsRepository | PaymentProvider | Transactions | Ids | Outbox | Jobs | ReconciliationRepository | ReconciliationSettings
> =>
  Effect.gen(function* () {
    const result = yield* reconcileIntent(intentId, reconcilerActor);
    if (result._tag === "AwaitingCustomer") return yield* recheckAwaitingCustomer(intentId);
    if (result._tag !== "NotSeenByProvider") return result;
    const settings = yield* ReconciliationSettings;
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const current = yield* lockedAttemptWhile(intentId, "processing");
        if (current === null) return { _tag: "NothingToReconcile" as const };
        const { intent, attempt } = current;
        const next = nextCheckInWindow(attempt.createdAt, at, settings);
        if (next !== null) {
          // A key of its own: the running job still holds the intent's key until it completes.
          yield* reconcileIntentJobType.schedule({ intent_id: intent.id }, { key: `${intent.id}:recheck:${next.getTime()}`, runAt: next });
          return { _tag: "RecheckScheduled" as const, at: next };
        }
        const opened = yield* openReconciliationException(
          {
            merchantId: intent.merchantId,
            providerObject: attempt.reference,
            settlementWindow: ambiguityWindowName,
            kind: "unresolved",
            subjectType: "payment_intent",
            subjectId: intent.id,
            expected: { status: "processing", amount_minor: intent.amountMinor, attempt: attempt.number },
            observed: null,
            currency: intent.currency,
          },
          reconcilerActor,
          `the provider has no record of ${attempt.reference} after the ${Math.round(settings.ambiguityWindowMs / 1000)} s resolution window`,
        );
        return { _tag: "ExceptionOpened" as const, opened };
      }),
    );
  }).pipe(withSpan("Payments.reconcileIntentWithinWindow"));

/** The intent, locked, and its current attempt while the intent is in `status`; null otherwise. */
const lockedAttemptWhile = (intentId: string, status: PaymentIntent["status"]) =>
  Effect.gen(function* () {
    const repo = yield* PaymentsRepository;
    const intent = yield* repo.findIntent(intentId, { forUpdate: true });
    if (intent === null || intent.status !== status) return null;
    const attempt = yield* repo.findAttempt(intent.id, intent.attemptCount);
    return attempt === null ? null : { intent, attempt };
  });

/**
 * An intent waiting in requires_action whose customer has not authenticated yet: asked again every
 * re-check interval for one ambiguity window after it began waiting (a lost webhook of a late
 * authentication is then repaired within a minute). Past the window nothing more is scheduled and
 * nothing is opened (a customer who walks away is no mismatch): a confirm, the provider's webhook
 * or the merchant's cancel (which cancels the provider payment) still resolves it.
 */
const recheckAwaitingCustomer = (intentId: string) =>
  Effect.gen(function* () {
    const settings = yield* ReconciliationSettings;
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const current = yield* lockedAttemptWhile(intentId, "requires_action");
        if (current === null) return { _tag: "NothingToReconcile" as const };
        const { intent, attempt } = current;
        const next = nextCheckInWindow(attempt.updatedAt, at, settings);
        if (next === null) return { _tag: "AwaitingCustomer" as const };
        yield* reconcileIntentJobType.schedule({ intent_id: intent.id }, { key: `${intent.id}:action:recheck:${next.getTime()}`, runAt: next });
        return { _tag: "RecheckScheduled" as const, at: next };
      }),
    );
  });

/**
 * Provider status reconciliation as a durable job: resolves an intent left processing by a lost
 * answer. While the provider has not seen the reference and the ambiguity window is open it
 * schedules a re-check; once the window has passed it opens a reconciliation exception. A
 * provider that does not answer fails the job, so the runner retries it with backoff.
 */
export const reconcileIntentJob = reconcileIntentJobType.handledBy(({ intent_id }) => Effect.asVoid(reconcileIntentWithinWindow(intent_id)));
