/**
 * Disputes as the provider reports them (the sandbox defines the same shape): events
 * `dispute.created`, `dispute.updated` and `dispute.closed`, each carrying the whole dispute.
 * The projection is read-only for merchants and only moves forward in provider time.
 */

/** The statuses of a dispute; won and lost are final. */
export const disputeStatuses = ["needs_response", "under_review", "won", "lost"] as const;
/** One dispute status. */
export type DisputeStatus = (typeof disputeStatuses)[number];

/** The provider dispute event types. */
export const disputeEventTypes = ["dispute.created", "dispute.updated", "dispute.closed"] as const;
/** One provider dispute event type. */
export type DisputeEventType = (typeof disputeEventTypes)[number];

/** A provider dispute event (payload of the provider webhook, already verified and deduplicated). */
export interface ProviderDisputeEvent {
  /** The provider's event id (unique). */
  readonly id: string;
  readonly type: DisputeEventType;
  /** Provider time of the event, milliseconds since the epoch: orders events of one dispute. */
  readonly createdMs: number;
  readonly dispute: {
    readonly id: string;
    /** The disputed provider payment (what our intents store as provider_payment_id). */
    readonly providerPaymentId: string;
    readonly amountMinor: number;
    readonly currency: string;
    readonly reason: string;
    readonly status: DisputeStatus;
  };
}

/** One dispute of a merchant, as projected. */
export interface Dispute {
  readonly id: string;
  readonly providerDisputeId: string;
  readonly merchantId: string;
  readonly paymentIntentId: string;
  readonly amountMinor: number;
  readonly currency: string;
  readonly reason: string;
  readonly status: DisputeStatus;
  /** Provider time of the last applied event; older events are ignored. */
  readonly lastEventMs: number;
  readonly lastEventId: string;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}
