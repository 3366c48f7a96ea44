/** One provider interaction of an intent, under a stable provider idempotency reference. */
import { Schema } from "effect";
import { MerchantId, PaymentAttemptId, PaymentIntentId } from "./Ids.js";

/** The outcome of one provider attempt as far as we know it. */
export const AttemptStatus = Schema.Literal("pending", "authorized", "captured", "requires_action", "declined", "unknown");
export type AttemptStatus = typeof AttemptStatus.Type;

/** A payment attempt record (table payment_attempts). */
export const PaymentAttempt = Schema.Struct({
  id: PaymentAttemptId,
  intentId: PaymentIntentId,
  merchantId: MerchantId,
  number: Schema.Int,
  reference: Schema.String,
  paymentMethod: Schema.String,
  status: AttemptStatus,
  providerPaymentId: Schema.NullOr(Schema.String),
  declineCode: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type PaymentAttempt = typeof PaymentAttempt.Type;
