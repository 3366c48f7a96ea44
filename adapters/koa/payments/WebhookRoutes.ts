/**
 * POST /v1/webhooks/provider — the provider's signed events. Not user authentication: the
 * signature over the RAW body (kept by the body parser as `ctx.request.rawBody`) and its
 * timestamp authenticate the delivery. 400 for a bad signature, a stale or future timestamp
 * or an unreadable event, with nothing stored; 200 for a stored event and for a replay.
 */
import { Effect, Schema } from "effect";
import type { Context } from "koa";
import { receiveProviderWebhook } from "../../../core/payments/ProviderEventProcessing.js";
import { defineRoute } from "../Route.js";

/** The header carrying the provider's signature. */
export const providerSignatureHeader = "Webhook-Signature";

/** The answer to a delivery: stored (or already stored) and what applying it did. */
export const WebhookReceiptView = Schema.Struct({
  received: Schema.Literal(true),
  provider_event_id: Schema.String,
  duplicate: Schema.Boolean,
  status: Schema.Literal("processed", "ignored"),
  reason: Schema.String,
});

// The parser keeps the exact bytes it parsed; a host that parsed the body itself leaves none,
// and an empty raw body then fails verification (nothing is trusted that was not signed).
const rawBodyOf = (ctx: Context): string => {
  const raw = (ctx.request as { rawBody?: unknown }).rawBody;
  return typeof raw === "string" ? raw : "";
};

/** POST /v1/webhooks/provider. */
const providerWebhookRoute = defineRoute({
  method: "POST",
  path: "/v1/webhooks/provider",
  operationId: "receiveProviderWebhook",
  summary: "Receive a signed payment provider event",
  description:
    "Authenticated by `Webhook-Signature: t=<unix>,v1=<hex HMAC-SHA256 of \"<t>.<raw body>\">` (several v1 allowed while secrets rotate; 300 s tolerance both ways). The provider event id is unique: a replay answers 200 and changes nothing.",
  tags: ["payments"],
  auth: "none",
  requestHeaders: [{ name: providerSignatureHeader, required: true, description: 't=<unix seconds>,v1=<hex HMAC-SHA256 of "<t>.<raw body>">; several v1 values while secrets rotate.' }],
  body: Schema.Unknown,
  responses: { 200: WebhookReceiptView },
  problems: [400],
  handler: (_input, ctx) =>
    receiveProviderWebhook({ rawBody: rawBodyOf(ctx), signatureHeader: ctx.get(providerSignatureHeader) || undefined }).pipe(
      Effect.map((receipt) => ({
        status: 200,
        body: {
          received: true as const,
          provider_event_id: receipt.providerEventId,
          duplicate: receipt.duplicate,
          status: receipt.status,
          reason: receipt.reason,
        },
      })),
    ),
});

/** The webhook routes of the payment module. */
export const webhookRoutes = [providerWebhookRoute];
