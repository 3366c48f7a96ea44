/**
 * Outgoing merchant webhooks: one delivery per (endpoint, event) and each delivery's immutable
 * attempts. `body` is the exact JSON text every attempt sends; no view shows it.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { DeliveryAttemptId, MerchantId, WebhookDeliveryId, WebhookEndpointId } from "./Ids.js";

/** pending: waiting for its (next) attempt; succeeded: a 2xx was received; dead: the bound was reached. */
export const DeliveryStatus = Schema.Literal("pending", "succeeded", "dead");
export type DeliveryStatus = typeof DeliveryStatus.Type;

/** A delivery record (table payment_webhook_deliveries). */
export const WebhookDelivery = Schema.Struct({
  id: WebhookDeliveryId,
  endpointId: WebhookEndpointId,
  merchantId: MerchantId,
  eventId: Schema.String,
  eventType: Schema.String,
  body: Schema.String,
  status: DeliveryStatus,
  attempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type WebhookDelivery = typeof WebhookDelivery.Type;

/** One immutable POST of a delivery and what came back (table payment_webhook_delivery_attempts). */
export const DeliveryAttempt = Schema.Struct({
  id: DeliveryAttemptId,
  deliveryId: WebhookDeliveryId,
  number: Schema.Int,
  /** The HTTP status received, null when no answer came (network error, timeout). */
  statusCode: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  attemptedAt: Schema.DateFromSelf,
});
export type DeliveryAttempt = typeof DeliveryAttempt.Type;

/** A delivery with its attempts, oldest attempt first, as listed to the merchant. */
export interface DeliveryWithAttempts {
  readonly delivery: WebhookDelivery;
  readonly attempts: ReadonlyArray<DeliveryAttempt>;
}

const attemptShown = ["number", "statusCode", "error", "attemptedAt"] as const;
/** One attempt as the merchant sees it. */
export const DeliveryAttemptView = Schema.Struct(Struct.pick(DeliveryAttempt.fields, ...attemptShown));

/** One delivery with its attempts, as its merchant sees it (never the body). */
export const WebhookDeliveryView = Schema.Struct({
  id: WebhookDelivery.fields.id,
  object: Schema.Literal("webhook_delivery"),
  ...Struct.pick(WebhookDelivery.fields, "endpointId", "eventId", "eventType", "status", "lastError"),
  attempts: Schema.Array(wireShape(DeliveryAttemptView)),
  ...Struct.pick(WebhookDelivery.fields, "createdAt", "updatedAt"),
});
export type WebhookDeliveryView = typeof WebhookDeliveryView.Type;
/** The delivery view on the wire. */
export const WebhookDeliveryWire = wireShape(WebhookDeliveryView);

/** The merchant's view of a delivery and its attempts. */
export const webhookDeliveryView = ({ delivery, attempts }: DeliveryWithAttempts): WebhookDeliveryView => ({
  id: delivery.id,
  object: "webhook_delivery",
  ...Struct.pick(delivery, "endpointId", "eventId", "eventType", "status", "lastError"),
  attempts: attempts.map((attempt) => Struct.pick(attempt, ...attemptShown)),
  ...Struct.pick(delivery, "createdAt", "updatedAt"),
});

const deadShown = ["merchantId", "endpointId", "eventId", "eventType", "status", "attempts", "lastError", "createdAt", "updatedAt"] as const;

/** A dead delivery on the operators' list: ids, event type, attempts, last error, timestamps; never the payload. */
export const DeadDeliveryView = Schema.Struct({
  id: WebhookDelivery.fields.id,
  object: Schema.Literal("webhook_delivery"),
  ...Struct.pick(WebhookDelivery.fields, ...deadShown),
});
export type DeadDeliveryView = typeof DeadDeliveryView.Type;
/** The dead delivery view on the wire. */
export const DeadDeliveryWire = wireShape(DeadDeliveryView);

/** The operators' view of a dead delivery (the body is left out here, so no adapter can show it). */
export const deadDeliveryView = (delivery: WebhookDelivery): DeadDeliveryView => ({
  id: delivery.id,
  object: "webhook_delivery",
  ...Struct.pick(delivery, ...deadShown),
});
