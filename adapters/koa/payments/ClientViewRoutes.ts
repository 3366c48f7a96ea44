/**
 * The restricted client-secret view of an intent. The secret travels in the `X-Client-Secret`
 * header, never in the URL, so it stays out of access logs, proxies and browser history; a
 * missing or wrong secret answers 404 exactly like an unknown intent.
 */
import { Effect, Schema } from "effect";
import { getClientView, type IntentClientView } from "../../../core/payments/ClientView.js";
import { IntentStatus } from "../../../core/payments/IntentStatus.js";
import { defineRoute } from "../Route.js";
import { IntentIdParams } from "./PaymentSchemas.js";

/** The header carrying an intent's client secret. */
export const clientSecretHeader = "X-Client-Secret";

/** What the customer side may read: no merchant, provider, token or ledger data. */
export const IntentClientViewSchema = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("payment_intent_client_view"),
  amount_minor: Schema.Int,
  currency: Schema.String,
  capture_method: Schema.Literal("automatic", "manual"),
  status: IntentStatus,
  last_decline_code: Schema.NullOr(Schema.String),
  created_at: Schema.String,
});

/** A client view on the wire. */
export const intentClientView = (v: IntentClientView): typeof IntentClientViewSchema.Type => ({
  id: v.id,
  object: "payment_intent_client_view",
  amount_minor: v.amountMinor,
  currency: v.currency,
  capture_method: v.captureMethod,
  status: v.status,
  last_decline_code: v.lastDeclineCode,
  created_at: v.createdAt.toISOString(),
});

/** GET /v1/payment-intents/:id/client-view — read-only view for the holder of the client secret. */
export const getIntentClientViewRoute = defineRoute({
  method: "GET",
  path: "/v1/payment-intents/:id/client-view",
  operationId: "getPaymentIntentClientView",
  summary: "Read the restricted client view of a payment intent (X-Client-Secret header)",
  description: "Authenticated by the intent's client secret in the X-Client-Secret header; a missing or wrong secret answers 404.",
  tags: ["payments"],
  auth: "none",
  idempotency: "none",
  params: IntentIdParams,
  responses: { 200: IntentClientViewSchema },
  problems: [404],
  handler: ({ params }, ctx) =>
    getClientView(params.id, ctx.get(clientSecretHeader) || undefined).pipe(
      Effect.map((view) => ({ status: 200, body: intentClientView(view), headers: { "Cache-Control": "no-store" } })),
    ),
});
