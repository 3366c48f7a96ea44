/**
 * The restricted client-secret view of an intent, as the customer holding the client secret
 * reads it (GET /v1/payment-intents/:id and confirm with `Authorization: Bearer <client secret>`).
 */
import { Schema } from "effect";
import type { IntentClientView } from "../../../core/payments/ClientView.js";
import { IntentStatus } from "../../../core/payments/IntentStatus.js";

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
