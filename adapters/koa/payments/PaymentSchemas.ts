/**
 * Request params and bodies of the payment intent and refund endpoints (docs/conventions.md,
 * HTTP). Response shapes are derived from the records in core/payments/model.
 */
import { Schema } from "effect";
import { PaymentIntentId } from "../../../core/payments/model/Ids.js";

/** A provider payment method token; the error message never repeats the value sent (the core's own rule). */
export { PaymentMethodToken } from "../../../core/payments/model/PaymentMethodToken.js";
import { PaymentMethodToken } from "../../../core/payments/model/PaymentMethodToken.js";

/** Path parameter of the intent routes. */
export const IntentIdParams = Schema.Struct({ id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100), Schema.compose(PaymentIntentId)) });

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
  payment_intent_id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100), Schema.compose(PaymentIntentId)),
  amount_minor: Schema.Int,
  currency: Schema.optional(Schema.String),
});
