/**
 * A merchant's registered webhook URL. The signing secret is not part of the record: it is
 * generated and read only behind the WebhookEndpoints port, and shown once at creation (and a
 * rotated one once in the rotation's answer).
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { MerchantId, WebhookEndpointId } from "./Ids.js";

/** The events a merchant endpoint may subscribe to (ReconciliationMismatchFound once the reconciler emits it). */
export const merchantWebhookEventTypes = [
  "PaymentSucceeded",
  "RefundSucceeded",
  "ReconciliationMismatchFound",
  "ReconciliationExceptionsOpen",
] as const;
/** One subscribable event type. */
export const MerchantWebhookEventType = Schema.Literal(...merchantWebhookEventTypes);
export type MerchantWebhookEventType = typeof MerchantWebhookEventType.Type;

/** An endpoint record (table payment_webhook_endpoints); `events` null means every type. */
export const WebhookEndpoint = Schema.Struct({
  id: WebhookEndpointId,
  merchantId: MerchantId,
  url: Schema.String,
  events: Schema.NullOr(Schema.Array(MerchantWebhookEventType)),
  createdAt: Schema.DateFromSelf,
  deletedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type WebhookEndpoint = typeof WebhookEndpoint.Type;

const shown = ["url", "events", "createdAt"] as const;

/** An endpoint as its merchant sees it (never its secret). */
export const WebhookEndpointView = Schema.Struct({
  id: WebhookEndpoint.fields.id,
  object: Schema.Literal("webhook_endpoint"),
  ...Struct.pick(WebhookEndpoint.fields, ...shown),
});
export type WebhookEndpointView = typeof WebhookEndpointView.Type;
/** The endpoint view on the wire. */
export const WebhookEndpointWire = wireShape(WebhookEndpointView);

/** The merchant's view of `endpoint`. */
export const webhookEndpointView = (endpoint: WebhookEndpoint): WebhookEndpointView => ({
  id: endpoint.id,
  object: "webhook_endpoint",
  ...Struct.pick(endpoint, ...shown),
});

/** The creation answer: the only one that carries the signing secret. */
export const CreatedWebhookEndpointView = Schema.Struct({ ...WebhookEndpointView.fields, secret: Schema.String });
/** The creation answer on the wire. */
export const CreatedWebhookEndpointWire = wireShape(CreatedWebhookEndpointView);

/** The answer of a secret rotation: the new secret (shown this once) and when the previous one stops signing (null: already). */
export const RotatedWebhookEndpointView = Schema.Struct({
  ...WebhookEndpointView.fields,
  secret: Schema.String,
  previousSecretExpiresAt: Schema.NullOr(Schema.DateFromSelf),
});
/** The rotation answer on the wire. */
export const RotatedWebhookEndpointWire = wireShape(RotatedWebhookEndpointView);
