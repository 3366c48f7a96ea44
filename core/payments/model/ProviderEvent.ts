/**
 * A verified provider event as the core sees it, whatever the provider's wire format. Events
 * name our objects by the stable references we sent (docs/conventions.md, Idempotency), so an
 * event is matched to exactly one attempt or refund. Unknown event types are kept (`other`):
 * stored and acknowledged, never applied.
 */
import { Schema } from "effect";
import { MerchantId, StoredProviderEventId } from "./Ids.js";

/** What the provider says happened to a payment (the authorization under our attempt reference). */
export const ProviderPaymentEventData = Schema.Struct({
  kind: Schema.Literal("payment"),
  status: Schema.Literal("authorized", "captured", "requires_action", "declined", "voided"),
  reference: Schema.String,
  providerPaymentId: Schema.NullOr(Schema.String),
  amountMinor: Schema.Int,
  capturedMinor: Schema.Int,
  currency: Schema.String,
  declineCode: Schema.NullOr(Schema.String),
});
export type ProviderPaymentEventData = typeof ProviderPaymentEventData.Type;

/** What the provider says happened to a refund (under our refund reference). */
export const ProviderRefundEventData = Schema.Struct({
  kind: Schema.Literal("refund"),
  status: Schema.Literal("succeeded", "failed"),
  reference: Schema.String,
  amountMinor: Schema.Int,
  currency: Schema.String,
  failureReason: Schema.NullOr(Schema.String),
});
export type ProviderRefundEventData = typeof ProviderRefundEventData.Type;

/** An event type this module does not act on (kept in the inbox, acknowledged). */
export const OtherProviderEventData = Schema.Struct({ kind: Schema.Literal("other") });
export type OtherProviderEventData = typeof OtherProviderEventData.Type;

/** One verified provider event. */
export const ProviderEvent = Schema.Struct({
  /** The provider's unique event id (the inbox's UNIQUE key). */
  id: Schema.String,
  type: Schema.String,
  /** When the provider says it happened (deliveries may be late or out of order). */
  occurredAt: Schema.DateFromSelf,
  data: Schema.Union(ProviderPaymentEventData, ProviderRefundEventData, OtherProviderEventData),
  /** The provider's payload as received (read by the dispute projection; the inbox stores only what the core read, ProviderEventRecord.ts). */
  payload: Schema.Unknown,
});
export type ProviderEvent = typeof ProviderEvent.Type;

/** Whether applying an event changed anything. */
export const ProviderEventStatus = Schema.Literal("processed", "ignored");

/** What applying an event did: applied (a legal, monotonic transition) or ignored, and why. */
export type ProviderEventOutcome = { readonly status: typeof ProviderEventStatus.Type; readonly reason: string };

/** An inbox row (table payment_provider_events): the event with its outcome, written once in the transaction that applied it. */
export const StoredProviderEvent = Schema.Struct({
  id: StoredProviderEventId,
  providerEventId: Schema.String,
  type: Schema.String,
  payload: Schema.Unknown,
  status: ProviderEventStatus,
  outcome: Schema.String,
  merchantId: Schema.NullOr(MerchantId),
  providerObject: Schema.NullOr(Schema.String),
  occurredAt: Schema.DateFromSelf,
  receivedAt: Schema.DateFromSelf,
});
export type StoredProviderEvent = typeof StoredProviderEvent.Type;
