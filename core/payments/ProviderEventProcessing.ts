/**
 * The verified webhook inbox (spec rule 4). A delivery is verified by the provider's receiver
 * (signature over the raw body, timestamp tolerance both ways) before anything is read or
 * stored. A verified event is processed inline, in ONE transaction with its inbox row: the
 * transition it implies is applied only when the transition table has that edge from the
 * intent's current status and the event is about the intent's current attempt, so a late or
 * reordered event never moves state backwards; the transition's ledger posting, outbox event
 * and audit record commit with it. A hold or capture reported under an earlier attempt's reference
 * moves nothing but opens a reconciliation exception (`status`) in the same transaction (resolved
 * with `refund_stale_capture`, RefundStaleCapture.ts). The inbox row is written once, with its outcome, and its
 * provider event id is UNIQUE: a replay finds the row (or loses the insert race and rolls
 * back) and changes nothing.
 */
import { Data, Effect, Either } from "effect";
import type { Conflict } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import type { AuthorizeResult } from "../../ports/payments/PaymentProvider.js";
import { ProviderEventsInbox, ProviderWebhookReceiver } from "../../ports/payments/ProviderEvents.js";
import { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import type { ReconciliationRepository } from "../../ports/payments/ReconciliationRepository.js";
import { openReconciliationException } from "./ReconciliationExceptions.js";
import { ambiguityWindowName } from "./model/ReconciliationException.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { applyAttemptOutcome } from "./ConfirmIntent.js";
import { applyRefundOutcome } from "./CreateRefund.js";
import { reloadIntent, saveIntent } from "./IntentRecords.js";
import { nextStatus, type IntentTrigger } from "./IntentStatus.js";
import { capturePosting, postLedger } from "./LedgerPostings.js";
import { emitPaymentSucceeded } from "./PaymentEvents.js";
import { storedPayloadOf } from "./ProviderEventRecord.js";
import { applyDisputeEvent, disputeEventFromProvider } from "./DisputeProjection.js";
import type { Disputes } from "../../ports/payments/Disputes.js";
import type { IllegalTransition } from "./Errors.js";
import type { ProviderEvent, ProviderEventOutcome, ProviderPaymentEventData, ProviderRefundEventData } from "./model/ProviderEvent.js";
import type { WebhookRejected } from "./Errors.js";
import { withSpan } from "../kernel/Span.js";
import { resolveRefundJobType } from "./ResolveRefundJobType.js";
import { reconcileIntentJobType } from "./ReconcileIntentJobType.js";
import { captureReconcileKey } from "./CaptureIntent.js";
import { applyCancel, voidReconcileKey } from "./CancelIntent.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import { MerchantId, StoredProviderEventId } from "./model/Ids.js";

/** The audit actor of everything a provider webhook does. */
export const providerWebhookActor = "provider:webhook";

/** What the endpoint answers: whether the event was new, and what applying it did. */
export interface WebhookReceipt {
  readonly providerEventId: string;
  readonly duplicate: boolean;
  readonly status: "processed" | "ignored";
  readonly reason: string;
}

type Services = ProviderEventsInbox | PaymentsRepository | ReconciliationRepository | Transactions | Ids | Outbox | Jobs | Disputes;

/** A concurrent delivery stored the same event first: roll back and answer the replay. */
class EventAlreadyStored extends Data.TaggedError("EventAlreadyStored")<{ readonly providerEventId: string }> {
  readonly code = "provider_event_already_stored";
  readonly category = "conflict" as const;
}

/** Verifies one delivery (raw body + signature header) and processes its event. */
export const receiveProviderWebhook = (delivery: {
  readonly rawBody: string;
  readonly signatureHeader: string | undefined;
}): Effect.Effect<WebhookReceipt, WebhookRejected | IllegalTransition | Conflict, Services | ProviderWebhookReceiver> =>
  Effect.gen(function* () {
    const event = yield* (yield* ProviderWebhookReceiver).open({ ...delivery, now: yield* now });
    return yield* processProviderEvent(event);
  }).pipe(withSpan("Payments.receiveProviderWebhook"));

/** Stores and applies one verified event exactly once (a replay changes nothing). */
export const processProviderEvent = (event: ProviderEvent): Effect.Effect<WebhookReceipt, IllegalTransition | Conflict, Services> =>
  Effect.gen(function* () {
    const inbox = yield* ProviderEventsInbox;
    const replay = (stored: { status: "processed" | "ignored"; outcome: string }): WebhookReceipt => ({
      providerEventId: event.id,
      duplicate: true,
      status: stored.status,
      reason: stored.outcome,
    });
    const existing = yield* inbox.find(event.id);
    if (existing !== null) return replay(existing);
    const applied = yield* applyProviderEvent(event);
    const receivedAt = yield* now;
    const inserted = yield* inbox.insert({
      id: StoredProviderEventId.make(yield* (yield* Ids).next),
      providerEventId: event.id,
      type: event.type,
      payload: storedPayloadOf(event),
      status: applied.outcome.status,
      outcome: applied.outcome.reason,
      merchantId: applied.merchantId,
      providerObject: applied.providerObject,
      occurredAt: event.occurredAt,
      receivedAt,
    });
    if (!inserted) return yield* Effect.fail(new EventAlreadyStored({ providerEventId: event.id }));
    yield* audit({
      merchantId: applied.merchantId,
      actor: providerWebhookActor,
      action: applied.outcome.status === "processed" ? "provider_event.applied" : "provider_event.ignored",
      subjectType: "provider_event",
      subjectId: event.id,
      reason: applied.outcome.reason,
      data: { type: event.type, provider_object: applied.providerObject },
    });
    return { providerEventId: event.id, duplicate: false, status: applied.outcome.status, reason: applied.outcome.reason };
  }).pipe(
    (effect) => Effect.flatMap(Transactions, (tx) => tx.run(effect)),
    Effect.catchTag("EventAlreadyStored", () =>
      // The concurrent winner committed: read what it recorded.
      Effect.flatMap(ProviderEventsInbox, (inbox) => inbox.find(event.id)).pipe(
        Effect.map((stored): WebhookReceipt => ({
          providerEventId: event.id,
          duplicate: true,
          status: stored?.status ?? "ignored",
          reason: stored?.outcome ?? "duplicate",
        })),
      ),
    ),
    withSpan("Payments.processProviderEvent"),
  );

interface Applied {
  readonly outcome: ProviderEventOutcome;
  readonly merchantId: MerchantId | null;
  readonly providerObject: string | null;
}

const ignored = (reason: string, merchantId: MerchantId | null, providerObject: string | null): Applied => ({
  outcome: { status: "ignored", reason },
  merchantId,
  providerObject,
});

/** Applies the transition an event implies, when it is legal and monotonic. */
const applyProviderEvent = (event: ProviderEvent): Effect.Effect<Applied, IllegalTransition | Conflict, Services> => {
  switch (event.data.kind) {
    case "payment":
      return applyPaymentEvent(event.data);
    case "refund":
      return applyRefundEvent(event.data);
    case "other": {
      // Dispute events feed the read-only disputes projection in the same transaction as the inbox row.
      const dispute = disputeEventFromProvider(event);
      if (dispute === null) return Effect.succeed(ignored(`event type ${event.type} is not acted on`, null, null));
      return Effect.map(applyDisputeEvent(dispute), (result): Applied =>
        result.status === "applied"
          ? {
              outcome: { status: "processed", reason: `dispute ${result.dispute.status}` },
              merchantId: result.dispute.merchantId,
              providerObject: dispute.dispute.id,
            }
          : ignored(`dispute event ${result.reason}`, null, dispute.dispute.id),
      );
    }
  }
};

/** Money the provider holds or took under a reference: an authorization (a hold) or a capture of something. */
const holdsMoney = (data: ProviderPaymentEventData): boolean =>
  (data.status === "authorized" && data.amountMinor > 0) || (data.status === "captured" && data.capturedMinor > 0);

/** Opens (once per reference) the `status` exception of a hold or capture reported under an earlier attempt's reference. */
const openEarlierAttemptMoney = (intent: PaymentIntent, number: number, attemptStatus: string, data: ProviderPaymentEventData) =>
  openReconciliationException(
    {
      merchantId: intent.merchantId,
      providerObject: data.reference,
      settlementWindow: ambiguityWindowName,
      kind: "status",
      subjectType: "payment_intent",
      subjectId: intent.id,
      expected: { attempt: number, status: attemptStatus, current_attempt: intent.attemptCount },
      observed: { status: data.status, amount_minor: data.amountMinor, captured_minor: data.capturedMinor, currency: data.currency },
      currency: data.currency,
    },
    providerWebhookActor,
    `the provider reports a ${data.status === "captured" ? "capture" : "hold"} under ${data.reference}, an earlier attempt of the payment intent (${attemptStatus})`,
  );

/** The trigger of a payment event, given the intent's status (a capture of a held authorization is `capture`). */
const triggerOf = (data: ProviderPaymentEventData, status: string): IntentTrigger | null => {
  switch (data.status) {
    case "authorized":
      return "provider_authorized";
    case "captured":
      return status === "requires_capture" ? "capture" : "provider_captured";
    case "requires_action":
      return "provider_requires_action";
    case "declined":
      return "provider_declined";
    case "voided":
      return null; // applied as a cancel (applyVoidEvent)
  }
};

const answerOf = (data: ProviderPaymentEventData): AuthorizeResult =>
  data.status === "declined"
    ? { _tag: "Declined", declineCode: data.declineCode ?? "declined" }
    : data.status === "requires_action"
      ? { _tag: "RequiresAction", providerPaymentId: data.providerPaymentId ?? "" }
      : { _tag: "Authorized", providerPaymentId: data.providerPaymentId ?? "", capturedMinor: data.status === "captured" ? data.capturedMinor : 0 };

const applyPaymentEvent = (data: ProviderPaymentEventData): Effect.Effect<Applied, IllegalTransition | Conflict, Services> =>
  Effect.gen(function* () {
    const attempt = yield* (yield* ProviderEventsInbox).findAttemptByReference(data.reference);
    if (attempt === null) return ignored("unknown provider reference", null, data.reference);
    // Locks the intent: concurrent deliveries, confirms and reconciliations apply one at a time.
    const intent = yield* reloadIntent(attempt.intentId);
    const skip = (reason: string) => ignored(reason, intent.merchantId, data.reference);
    if (attempt.number !== intent.attemptCount) {
      if (!holdsMoney(data)) return skip("the event is about an earlier attempt");
      // Money held or taken under a reference we no longer act on: a human looks now, not when the hold expires or the settlement file comes.
      const opened = yield* openEarlierAttemptMoney(intent, attempt.number, attempt.status, data);
      const what = data.status === "captured" ? "a capture" : "a hold";
      return skip(`the event is about an earlier attempt; ${what} under it ${opened ? "opened" : "has"} a reconciliation exception`);
    }
    if (data.currency !== intent.currency) return skip("currency differs from the payment intent");
    if (data.capturedMinor > intent.amountMinor || data.capturedMinor < 0) return skip("captured amount outside the payment intent");
    // An authorization or capture is of the intent's amount; a capture captured something.
    if ((data.status === "authorized" || data.status === "captured") && data.amountMinor !== intent.amountMinor) {
      return skip("amount differs from the payment intent");
    }
    if (data.status === "captured" && data.capturedMinor <= 0) return skip("a capture of nothing is not applied");
    if (data.status === "voided") return yield* applyVoidEvent(intent, data.reference);
    const trigger = triggerOf(data, intent.status);
    if (trigger === null) return skip(`provider status ${data.status} is not applied`);
    const next = nextStatus(intent.status, trigger);
    // No edge means the intent is already at or past this state: an older event never moves it back.
    if (next === undefined) return skip(`no transition ${intent.status} -> ${trigger}`);
    if (trigger === "capture" && data.capturedMinor > intent.amountCapturableMinor) return skip("captured amount above what the authorization holds");
    if (intent.status === "processing") {
      const result = yield* applyAttemptOutcome(providerWebhookActor, intent.id, attempt.number, Either.right(answerOf(data)));
      return result.intent.version === intent.version
        ? skip("the attempt was already resolved")
        : { outcome: { status: "processed" as const, reason: `${intent.status} -> ${result.intent.status}` }, merchantId: intent.merchantId, providerObject: data.reference };
    }
    // requires_action (the customer authenticated) or requires_capture (a capture whose answer was lost).
    const at = yield* now;
    const capturedMinor = trigger === "capture" || trigger === "provider_captured" ? data.capturedMinor : 0;
    yield* (yield* PaymentsRepository).updateAttempt({
      ...attempt,
      status: data.status === "captured" ? "captured" : data.status === "authorized" ? "authorized" : "declined",
      providerPaymentId: data.providerPaymentId ?? attempt.providerPaymentId,
      declineCode: data.status === "declined" ? (data.declineCode ?? "declined") : null,
      updatedAt: at,
    });
    // Posted before the move: the database checks the posting when the intent succeeds (migration 30).
    if (capturedMinor > 0) yield* postLedger(intent.merchantId, capturePosting(intent.merchantId, intent.id, capturedMinor, intent.currency)).pipe(Effect.orDie);
    const saved = yield* saveIntent(
      intent,
      {
        status: next,
        providerPaymentId: data.providerPaymentId ?? intent.providerPaymentId,
        amountCapturedMinor: capturedMinor,
        amountCapturableMinor: trigger === "provider_authorized" ? intent.amountMinor : 0,
        lastDeclineCode: data.status === "declined" ? (data.declineCode ?? "declined") : null,
        paymentMethod: trigger === "provider_declined" ? null : intent.paymentMethod,
      },
      at,
    );
    if (capturedMinor > 0) yield* emitPaymentSucceeded(saved, providerWebhookActor);
    // A capture whose own answer was lost has its reconciliation job: this answer leaves it nothing to do.
    if (trigger === "capture") yield* (yield* Jobs).cancel(reconcileIntentJobType.kind, captureReconcileKey(intent.id));
    return { outcome: { status: "processed" as const, reason: `${intent.status} -> ${next}` }, merchantId: intent.merchantId, providerObject: data.reference };
  });

/**
 * The provider voided the current attempt's payment (an authorization expired or was released, or
 * a cancel's answer was lost): a held or waiting intent is canceled, as reconciliation does on the
 * same record (ReconcileIntent.ts). Any other status has nothing held to release.
 */
const applyVoidEvent = (intent: PaymentIntent, reference: string): Effect.Effect<Applied, IllegalTransition | Conflict, Services> =>
  Effect.gen(function* () {
    if (intent.status !== "requires_capture" && intent.status !== "requires_action") {
      return ignored(`no transition ${intent.status} -> cancel`, intent.merchantId, reference);
    }
    yield* applyCancel(providerWebhookActor, intent.id, "provider event: the payment was voided");
    // A cancel whose void answer was lost has its reconciliation job: this answer leaves it nothing to do.
    yield* (yield* Jobs).cancel(reconcileIntentJobType.kind, voidReconcileKey(intent.id));
    return { outcome: { status: "processed" as const, reason: `${intent.status} -> canceled` }, merchantId: intent.merchantId, providerObject: reference };
  });

const applyRefundEvent = (data: ProviderRefundEventData): Effect.Effect<Applied, Conflict, Services> =>
  Effect.gen(function* () {
    const refund = yield* (yield* ProviderEventsInbox).findRefundByReference(data.reference);
    if (refund === null) return ignored("unknown provider reference", null, data.reference);
    const skip = (reason: string) => ignored(reason, refund.merchantId, data.reference);
    // pending -> succeeded | failed only: a resolved refund never changes again.
    if (refund.status !== "pending") return skip(`the refund is already ${refund.status}`);
    if (data.currency !== refund.currency || data.amountMinor !== refund.amountMinor) return skip("amount or currency differs from the refund");
    const updated = yield* applyRefundOutcome(
      providerWebhookActor,
      refund.id,
      Either.right(data.status === "succeeded" ? { _tag: "Done", amountMinor: data.amountMinor } : { _tag: "Rejected", reason: data.failureReason ?? "failed" }),
    );
    if (updated.status === "pending") return skip("the refund was not changed");
    // Its resolution job has nothing left to do (as when the refund's own answer is applied).
    yield* (yield* Jobs).cancel(resolveRefundJobType.kind, refund.id);
    return { outcome: { status: "processed" as const, reason: `pending -> ${updated.status}` }, merchantId: refund.merchantId, providerObject: data.reference };
  });
