/**
 * A settlement job that exhausted its bounded retries (the operators' page): which event and
 * order it settles, how often it ran, the last error, and its state (`dead`, or `pending` once
 * replayed). Never a payload beyond ids.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";

export const SettlementDeadLetter = Schema.Struct({
  /** The job's id (what replay takes). */
  id: Schema.String,
  eventId: Schema.NullOr(Schema.String),
  orderId: Schema.NullOr(Schema.String),
  deliveryId: Schema.NullOr(Schema.String),
  status: Schema.Literal("pending", "running", "done", "dead", "cancelled"),
  attempts: Schema.Int,
  maxAttempts: Schema.Int,
  lastError: Schema.NullOr(Schema.String),
  /** When the last attempt was due (a replayed letter: when it runs again). */
  runAt: Schema.DateFromSelf,
});
export type SettlementDeadLetter = typeof SettlementDeadLetter.Type;
export const SettlementDeadLetterWire = wireShape(SettlementDeadLetter);
