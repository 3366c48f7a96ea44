/**
 * A verified provider event as the core sees it, whatever the provider's wire format. Events
 * name our objects by the stable references we sent (conventions.md, Idempotency), so an event
 * is matched to exactly one attempt or refund. Unknown event types are kept (`other`): stored
 * and acknowledged, never applied.
 */

/** What the provider says happened to a payment (the authorization under our attempt reference). */
export interface ProviderPaymentEventData {
  readonly kind: "payment";
  readonly status: "authorized" | "captured" | "requires_action" | "declined" | "voided";
  readonly reference: string;
  readonly providerPaymentId: string | null;
  readonly amountMinor: number;
  readonly capturedMinor: number;
  readonly currency: string;
  readonly declineCode: string | null;
}

/** What the provider says happened to a refund (under our refund reference). */
export interface ProviderRefundEventData {
  readonly kind: "refund";
  readonly status: "succeeded" | "failed";
  readonly reference: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly failureReason: string | null;
}

/** An event type this module does not act on (kept in the inbox, acknowledged). */
export interface OtherProviderEventData {
  readonly kind: "other";
}

/** One verified provider event. */
export interface ProviderEvent {
  /** The provider's unique event id (the inbox's UNIQUE key). */
  readonly id: string;
  readonly type: string;
  /** When the provider says it happened (deliveries may be late or out of order). */
  readonly occurredAt: Date;
  readonly data: ProviderPaymentEventData | ProviderRefundEventData | OtherProviderEventData;
  /** The provider's payload as received (stored for audit; carries no card data, only tokens' outcomes). */
  readonly payload: unknown;
}

/** What applying an event did: applied (a legal, monotonic transition) or ignored, and why. */
export type ProviderEventOutcome = { readonly status: "processed" | "ignored"; readonly reason: string };

/** An inbox row: the event with its outcome, written once in the transaction that applied it. */
export interface StoredProviderEvent {
  readonly id: string;
  readonly providerEventId: string;
  readonly type: string;
  readonly payload: unknown;
  readonly status: "processed" | "ignored";
  readonly outcome: string;
  readonly merchantId: string | null;
  readonly providerObject: string | null;
  readonly occurredAt: Date;
  readonly receivedAt: Date;
}
