/**
 * Disputes as the provider reports them (the sandbox defines the same shape): events
 * `dispute.created`, `dispute.updated` and `dispute.closed`, each carrying the whole dispute.
 * The projection is read-only for merchants and only moves forward in provider time.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { DisputeId, MerchantId, PaymentIntentId } from "./Ids.js";

/** The statuses of a dispute; won and lost are final. */
export const disputeStatuses = ["needs_response", "under_review", "won", "lost"] as const;
/** One dispute status. */
export const DisputeStatus = Schema.Literal(...disputeStatuses);
export type DisputeStatus = typeof DisputeStatus.Type;

/** The provider dispute event types. */
export const disputeEventTypes = ["dispute.created", "dispute.updated", "dispute.closed"] as const;
/** One provider dispute event type. */
export const DisputeEventType = Schema.Literal(...disputeEventTypes);
export type DisputeEventType = typeof DisputeEventType.Type;

/** A provider dispute event (payload of the provider webhook, already verified and deduplicated). */
export const ProviderDisputeEvent = Schema.Struct({
  /** The provider's event id (unique). */
  id: Schema.String,
  type: DisputeEventType,
  /** Provider time of the event, milliseconds since the epoch: orders events of one dispute. */
  createdMs: Schema.Number,
  dispute: Schema.Struct({
    id: Schema.String,
    /** The disputed provider payment (what our intents store as provider_payment_id). */
    providerPaymentId: Schema.String,
    amountMinor: Schema.Int,
    currency: Schema.String,
    reason: Schema.String,
    status: DisputeStatus,
  }),
});
export type ProviderDisputeEvent = typeof ProviderDisputeEvent.Type;

/** One dispute of a merchant, as projected (table payment_disputes). */
export const Dispute = Schema.Struct({
  id: DisputeId,
  providerDisputeId: Schema.String,
  merchantId: MerchantId,
  paymentIntentId: PaymentIntentId,
  amountMinor: Schema.Int,
  currency: Schema.String,
  reason: Schema.String,
  status: DisputeStatus,
  /** Provider time of the last applied event; older events are ignored. */
  lastEventMs: Schema.Number,
  lastEventId: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Dispute = typeof Dispute.Type;

const shown = ["providerDisputeId", "paymentIntentId", "amountMinor", "currency", "reason", "status", "createdAt", "updatedAt"] as const;

/** A dispute as its merchant sees it. */
export const DisputeView = Schema.Struct({
  id: Dispute.fields.id,
  object: Schema.Literal("dispute"),
  ...Struct.pick(Dispute.fields, ...shown),
});
export type DisputeView = typeof DisputeView.Type;
/** The dispute view on the wire. */
export const DisputeWire = wireShape(DisputeView);

/** The merchant's view of `dispute`. */
export const disputeView = (dispute: Dispute): DisputeView => ({
  id: dispute.id,
  object: "dispute",
  ...Struct.pick(dispute, ...shown),
});
