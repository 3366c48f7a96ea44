/**
 * Wire shapes of the payment endpoints (snake_case, conventions.md) and the mapping from core
 * records. Responses never carry payment method tokens, provider ids of other merchants or
 * secrets: only what the owning merchant may see.
 */
import { Schema } from "effect";
import { IntentStatus } from "../../../core/payments/IntentStatus.js";
import type { BalanceEntry, PaymentIntent, Refund } from "../../../core/payments/PaymentIntent.js";

/** A provider payment method token; the error message never repeats the value sent. */
export const PaymentMethodToken = Schema.String.pipe(
  Schema.filter((s) => /^pm_[A-Za-z0-9_]{1,64}$/.test(s) || "must be a provider payment method token (pm_...)"),
);

/** Path parameter of the intent routes. */
export const IntentIdParams = Schema.Struct({ id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)) });

/** Body of POST /v1/payment-intents. */
export const CreateIntentBody = Schema.Struct({
  amount_minor: Schema.Int,
  currency: Schema.String,
  capture_method: Schema.optional(Schema.Literal("automatic", "manual")),
  payment_method: Schema.optionalWith(PaymentMethodToken, { exact: true }),
});

/** Body of POST /v1/payment-intents/:id/confirm. */
export const ConfirmIntentBody = Schema.Struct({ payment_method: Schema.optionalWith(PaymentMethodToken, { exact: true }) });

/** Body of POST /v1/payment-intents/:id/capture (default: capture everything held). */
export const CaptureIntentBody = Schema.Struct({
  amount_minor: Schema.optional(Schema.Int),
  currency: Schema.optional(Schema.String),
});

/** Body of POST /v1/refunds. */
export const CreateRefundBody = Schema.Struct({
  payment_intent_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)),
  amount_minor: Schema.Int,
  currency: Schema.optional(Schema.String),
});

/** A payment intent as its merchant sees it. */
export const IntentView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("payment_intent"),
  merchant_id: Schema.String,
  amount_minor: Schema.Int,
  currency: Schema.String,
  capture_method: Schema.Literal("automatic", "manual"),
  status: IntentStatus,
  amount_capturable_minor: Schema.Int,
  amount_captured_minor: Schema.Int,
  amount_refunded_minor: Schema.Int,
  last_decline_code: Schema.NullOr(Schema.String),
  attempt_count: Schema.Int,
  version: Schema.Int,
  created_at: Schema.String,
  updated_at: Schema.String,
});
export type IntentView = typeof IntentView.Type;

/** The answer of POST /v1/payment-intents: the intent and its client secret (shown here only). */
export const CreatedIntentView = Schema.Struct({ ...IntentView.fields, client_secret: Schema.String });

/** The 402 answer of a declined confirm: a problem body carrying the intent, confirmable again. */
export const DeclinedProblem = Schema.Struct({
  type: Schema.String,
  title: Schema.String,
  status: Schema.Literal(402),
  detail: Schema.String,
  code: Schema.Literal("card_declined"),
  decline_code: Schema.String,
  payment_intent: IntentView,
});

/** A refund as its merchant sees it. */
export const RefundView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("refund"),
  payment_intent_id: Schema.String,
  amount_minor: Schema.Int,
  currency: Schema.String,
  status: Schema.Literal("pending", "succeeded", "failed"),
  failure_reason: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String,
});

/** One ledger entry of the merchant. */
export const BalanceTransactionView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("balance_transaction"),
  transaction_id: Schema.String,
  source: Schema.String,
  account: Schema.String,
  amount_minor: Schema.Int,
  currency: Schema.String,
  created_at: Schema.String,
});

/** An intent record on the wire. */
export const intentView = (i: PaymentIntent): IntentView => ({
  id: i.id,
  object: "payment_intent",
  merchant_id: i.merchantId,
  amount_minor: i.amountMinor,
  currency: i.currency,
  capture_method: i.captureMethod,
  status: i.status,
  amount_capturable_minor: i.amountCapturableMinor,
  amount_captured_minor: i.amountCapturedMinor,
  amount_refunded_minor: i.amountRefundedMinor,
  last_decline_code: i.lastDeclineCode,
  attempt_count: i.attemptCount,
  version: i.version,
  created_at: i.createdAt.toISOString(),
  updated_at: i.updatedAt.toISOString(),
});

/** A refund record on the wire. */
export const refundView = (r: Refund): typeof RefundView.Type => ({
  id: r.id,
  object: "refund",
  payment_intent_id: r.intentId,
  amount_minor: r.amountMinor,
  currency: r.currency,
  status: r.status,
  failure_reason: r.failureReason,
  created_at: r.createdAt.toISOString(),
  updated_at: r.updatedAt.toISOString(),
});

/** A ledger entry on the wire. */
export const balanceTransactionView = (e: BalanceEntry): typeof BalanceTransactionView.Type => ({
  id: e.id,
  object: "balance_transaction",
  transaction_id: e.transactionId,
  source: e.source,
  account: e.account,
  amount_minor: e.amountMinor,
  currency: e.currency,
  created_at: e.createdAt.toISOString(),
});
