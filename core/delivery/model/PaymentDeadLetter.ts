/**
 * A payment step that exhausted its retries (the operators' page): an order's capture, void or
 * pending-payment resolution or a support refund, or the release of a quote's authorization left without an order;
 * the order or quote, how often it ran, the last error and its state. Never a payload beyond ids.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";

export const PaymentDeadLetter = Schema.Struct({
  /** The job's id. */
  id: Schema.String,
  step: Schema.Literal("capture", "void", "resolve", "release", "refund"),
  /** The order (capture, void, resolve, refund). */
  orderId: Schema.NullOr(Schema.String),
  /** The quote whose authorization is released (release). */
  quoteId: Schema.NullOr(Schema.String),
  status: Schema.Literal("pending", "running", "done", "dead", "cancelled"),
  attempts: Schema.Int,
  maxAttempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  /** When the last attempt was due. */
  runAt: Schema.DateFromSelf,
});
export type PaymentDeadLetter = typeof PaymentDeadLetter.Type;
export const PaymentDeadLetterWire = wireShape(PaymentDeadLetter);
