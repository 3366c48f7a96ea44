/** Request bodies of the reconciliation exception routes. */
import { Schema } from "effect";

/** Body of POST /v1/reconciliation-exceptions/:id/resolve. */
export const ResolveExceptionBody = Schema.Struct({
  resolution: Schema.Literal("reversal", "adjustment", "acknowledgement", "settle_intent", "refund_stale_capture"),
  reason: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)),
  ledger_source: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(300))),
  amount_minor: Schema.optional(Schema.Int),
  currency: Schema.optional(Schema.String),
});
