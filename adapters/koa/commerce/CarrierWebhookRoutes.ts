/**
 * POST /v1/webhooks/carrier — carrier tracking updates. Not user authentication: the signature
 * over the RAW body (kept by the body parser as `ctx.request.rawBody`) and its timestamp
 * authenticate the delivery. 400 for a bad signature, a stale or future timestamp or an
 * unreadable event, with nothing stored; 200 for an applied, ignored or replayed event.
 */
import { Effect, Schema } from "effect";
import type { Context } from "koa";
import { receiveCarrierWebhook } from "../../../core/commerce/CarrierTracking.js";
import { defineRoute } from "../Route.js";

/** The header carrying the carrier's signature. */
export const carrierSignatureHeader = "Webhook-Signature";

/** The answer to a delivery. */
export const CarrierWebhookReceiptView = Schema.Struct({
  received: Schema.Literal(true),
  event_id: Schema.String,
  duplicate: Schema.Boolean,
  status: Schema.Literal("applied", "ignored"),
});

// The parser keeps the exact bytes it parsed; without them verification fails (nothing unsigned is trusted).
const rawBodyOf = (ctx: Context): string => {
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  return typeof raw === "string" ? raw : "";
};

/** POST /v1/webhooks/carrier. */
export const carrierWebhookRoute = defineRoute({
  method: "POST",
  path: "/v1/webhooks/carrier",
  operationId: "receiveCarrierWebhook",
  summary: "Receive a signed carrier tracking update",
  description:
    "Authenticated by `Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\">` (300 s tolerance both ways). Body: " +
    "`{id, carrier, tracking_number, status: in_transit|out_for_delivery|delivered|exception, occurred_at}`. The event id is unique " +
    "per carrier: a replay answers 200 and changes nothing; an update for an unknown parcel is acknowledged and ignored.",
  tags: ["commerce"],
  auth: "none",
  requestHeaders: [{ name: carrierSignatureHeader, required: true, description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">; several v1 values during secret rotation.' }],
  body: Schema.Unknown,
  responses: { 200: CarrierWebhookReceiptView },
  problems: [400],
  handler: (_input, ctx) =>
    receiveCarrierWebhook({ rawBody: rawBodyOf(ctx), signatureHeader: ctx.get(carrierSignatureHeader) || undefined }).pipe(
      Effect.map((receipt) => ({
        status: 200,
        body: { received: true as const, event_id: receipt.eventId, duplicate: receipt.duplicate, status: receipt.status },
      })),
    ),
});

/** The carrier webhook routes. */
export const carrierWebhookRoutes = [carrierWebhookRoute];
