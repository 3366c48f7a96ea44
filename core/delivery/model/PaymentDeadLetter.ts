/**
 * A payment step of an order (its capture or its void) that exhausted its retries (the operators'
 * page): the step, the order, how often it ran, the last error and its state. Never a payload
 * beyond ids.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";

export const PaymentDeadLetter = Schema.Struct({
  /** The job's id. */
  id: Schema.String,
  step: Schema.Literal("capture", "void"),
  orderId: Schema.NullOr(Schema.String),
  status: Schema.Literal("pending", "running", "done", "dead", "cancelled"),
  attempts: Schema.Int,
  maxAttempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  /** When the last attempt was due. */
  runAt: Schema.DateFromSelf,
});
export type PaymentDeadLetter = typeof PaymentDeadLetter.Type;
export const PaymentDeadLetterWire = wireShape(PaymentDeadLetter);
