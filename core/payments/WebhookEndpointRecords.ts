/**
 * Records of outgoing merchant webhooks: the endpoints a merchant registers, one delivery per
 * (endpoint, event), each delivery's attempts, and the dual-control replay requests of
 * dead-lettered deliveries. Signing secrets never appear in these records once created.
 */

/** The events a merchant endpoint may subscribe to (ReconciliationMismatchFound once the reconciler emits it). */
export const merchantWebhookEventTypes = [
  "PaymentSucceeded",
  "RefundSucceeded",
  "ReconciliationMismatchFound",
  "ReconciliationExceptionsOpen",
] as const;
/** One subscribable event type. */
export type MerchantWebhookEventType = (typeof merchantWebhookEventTypes)[number];

/** A merchant's registered webhook URL; `events` null means every type. */
export interface WebhookEndpoint {
  readonly id: string;
  readonly merchantId: string;
  readonly url: string;
  readonly events: ReadonlyArray<MerchantWebhookEventType> | null;
  readonly createdAt: Date;
  readonly deletedAt: Date | null;
}

/** pending: waiting for its (next) attempt; succeeded: a 2xx was received; dead: the bound was reached. */
export type DeliveryStatus = "pending" | "succeeded" | "dead";

/** One event to one endpoint; `body` is the exact JSON text every attempt sends. */
export interface WebhookDelivery {
  readonly id: string;
  readonly endpointId: string;
  readonly merchantId: string;
  readonly eventId: string;
  readonly eventType: string;
  readonly body: string;
  readonly status: DeliveryStatus;
  readonly attempts: number;
  readonly lastError: string | null;
  readonly createdAt: Date;
  readonly updatedAt: Date;
}

/** One immutable POST of a delivery and what came back. */
export interface DeliveryAttempt {
  readonly id: string;
  readonly deliveryId: string;
  readonly number: number;
  /** The HTTP status received, null when no answer came (network error, timeout). */
  readonly statusCode: number | null;
  readonly error: string | null;
  readonly attemptedAt: Date;
}

/** A delivery with its attempts, oldest attempt first, as listed to the merchant. */
export interface DeliveryWithAttempts {
  readonly delivery: WebhookDelivery;
  readonly attempts: ReadonlyArray<DeliveryAttempt>;
}

/** A request to replay a dead delivery: one operator asks, a different one approves. */
export interface ReplayRequest {
  readonly id: string;
  readonly deliveryId: string;
  readonly requestedBy: string;
  readonly reason: string;
  readonly requestedAt: Date;
  readonly approvedBy: string | null;
  readonly approvalReason: string | null;
  readonly approvedAt: Date | null;
}
