/** One provider interaction of an intent, under a stable provider idempotency reference. */
import { Schema } from "effect";

/** The outcome of one provider attempt as far as we know it. */
export const AttemptStatus = Schema.Literal("pending", "authorized", "captured", "requires_action", "declined", "unknown");
export type AttemptStatus = typeof AttemptStatus.Type;

/** A payment attempt record (table payment_attempts). */
export const PaymentAttempt = Schema.Struct({
  id: Schema.String,
  intentId: Schema.String,
  merchantId: Schema.String,
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
