/** Request params and bodies of the merchant webhook endpoint routes. */
import { Schema } from "effect";
import { WebhookEndpointId } from "../../../core/payments/model/Ids.js";

/** Path parameter of one endpoint. */
export const WebhookEndpointIdParams = Schema.Struct({ id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100), Schema.compose(WebhookEndpointId)) });

/** Body of POST /v1/webhook-endpoints (events default: every type). */
export const CreateWebhookEndpointBody = Schema.Struct({
  url: Schema.String.pipe(Schema.maxLength(2048)),
  events: Schema.optional(Schema.Array(Schema.String.pipe(Schema.maxLength(100))).pipe(Schema.maxItems(20))),
});

/** Body of POST /v1/webhook-endpoints/:id/rotate-secret (default overlap: one day, at most 7; 0 ends the old secret now). */
export const RotateWebhookSecretBody = Schema.Struct({
  overlap_seconds: Schema.optional(Schema.Number),
  reason: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500))),
});
