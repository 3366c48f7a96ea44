/**
 * The disputes projection (spec should-have): provider dispute events projected into a read-only
 * per-merchant list. `applyDisputeEvent` is what the verified provider-webhook processing calls
 * for `dispute.*` events, inside its transaction; it applies an event only when it is newer in
 * provider time than the stored dispute and that dispute is not closed, so duplicate, late and
 * reordered events never move a dispute backwards.
 */
import { Effect, Either, Schema } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import type { Forbidden, InvalidCursor } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { Disputes } from "../../ports/payments/Disputes.js";
import type { PaymentsRepository } from "../../ports/payments/PaymentsRepository.js";
import { now } from "../kernel/Clock.js";
import { audit } from "./Audit.js";
import { disputeEventTypes, disputeStatuses, type Dispute, type ProviderDisputeEvent } from "./model/Dispute.js";
import { requireMerchant } from "./MerchantAccess.js";
import { withSpan } from "../kernel/Span.js";
import { DisputeId } from "./model/Ids.js";

/** The audit actor of dispute changes. */
export const providerDisputeActor = "provider:dispute_event";

/** The dispute object inside a provider event's `data.object` (the sandbox's wire shape). */
export const ProviderDisputeObject = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  payment: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(200)),
  amount_minor: Schema.Int.pipe(Schema.positive()),
  currency: Schema.String.pipe(Schema.length(3)),
  reason: Schema.String.pipe(Schema.maxLength(200)),
  status: Schema.Literal(...disputeStatuses),
});

const DisputePayload = Schema.Struct({ data: Schema.Struct({ object: ProviderDisputeObject }) });

/**
 * A verified provider event as a dispute event, or null when it is not one (another type or a
 * payload without a well-formed dispute object). For the webhook processing to route with.
 */
export const disputeEventFromProvider = (event: {
  readonly id: string;
  readonly type: string;
  readonly occurredAt: Date;
  readonly payload: unknown;
}): ProviderDisputeEvent | null => {
  const type = disputeEventTypes.find((t) => t === event.type);
  if (type === undefined) return null;
  const decoded = Schema.decodeUnknownEither(DisputePayload)(event.payload);
  if (Either.isLeft(decoded)) return null;
  const o = decoded.right.data.object;
  return {
    id: event.id,
    type,
    createdMs: event.occurredAt.getTime(),
    dispute: { id: o.id, providerPaymentId: o.payment, amountMinor: o.amount_minor, currency: o.currency, reason: o.reason, status: o.status },
  };
};

/** What applying a dispute event did. */
export type DisputeEventOutcome =
  | { readonly status: "applied"; readonly dispute: Dispute }
  | { readonly status: "ignored"; readonly reason: "unknown_payment" | "stale_or_closed" };

/** Applies one verified provider dispute event (joins the caller's transaction when there is one). */
export const applyDisputeEvent = (
  event: ProviderDisputeEvent,
): Effect.Effect<DisputeEventOutcome, never, Disputes | PaymentsRepository | Transactions | Ids> =>
  Effect.gen(function* () {
    const disputes = yield* Disputes;
    const newId = DisputeId.make(yield* (yield* Ids).next);
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const owner = yield* disputes.intentOfProviderPayment(event.dispute.providerPaymentId);
        if (owner === null) return { status: "ignored", reason: "unknown_payment" } as const;
        const existing = yield* disputes.findByProviderId(event.dispute.id);
        const dispute: Dispute = {
          id: existing?.id ?? newId,
          providerDisputeId: event.dispute.id,
          merchantId: owner.merchantId,
          paymentIntentId: owner.intentId,
          amountMinor: event.dispute.amountMinor,
          currency: event.dispute.currency,
          reason: event.dispute.reason,
          status: event.dispute.status,
          lastEventMs: event.createdMs,
          lastEventId: event.id,
          createdAt: existing?.createdAt ?? at,
          updatedAt: at,
        };
        if (!(yield* disputes.apply(dispute))) return { status: "ignored", reason: "stale_or_closed" } as const;
        yield* audit({
          merchantId: owner.merchantId,
          actor: providerDisputeActor,
          action: event.type,
          subjectType: "dispute",
          subjectId: dispute.id,
          reason: "provider dispute event",
          data: { provider_event_id: event.id, provider_dispute_id: event.dispute.id, status: event.dispute.status },
        });
        return { status: "applied", dispute } as const;
      }),
    );
  }).pipe(withSpan("Payments.applyDisputeEvent"));

/** The caller's disputes, newest first, as keyset pages (scope ledger:read: a finance read). */
export const listDisputes = (
  principal: Principal,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<Dispute>, Forbidden | InvalidCursor, Disputes> =>
  Effect.gen(function* () {
    const caller = yield* requireMerchant(principal, "ledger:read");
    const before = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* Disputes).list({ merchantId: caller.merchantId, ...(before === undefined ? {} : { before }), limit: page.limit + 1 });
    return pageFrom(rows, page.limit, (row) => [row.id]);
  }).pipe(withSpan("Payments.listDisputes"));
