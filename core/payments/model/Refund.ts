/** A full or partial refund of a captured intent. */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { MerchantId, PaymentIntentId, RefundId } from "./Ids.js";

/** pending counts against the refundable amount until it succeeds or fails. */
export const RefundStatus = Schema.Literal("pending", "succeeded", "failed");
export type RefundStatus = typeof RefundStatus.Type;

/** A refund record (table payment_refunds). */
export const Refund = Schema.Struct({
  id: RefundId,
  intentId: PaymentIntentId,
  merchantId: MerchantId,
  amountMinor: Schema.Int,
  currency: Schema.String,
  status: RefundStatus,
  /** The provider idempotency reference of this refund. */
  reference: Schema.String,
  failureReason: Schema.NullOr(Schema.String),
  /** The Idempotency-Key it was requested under: one refund per merchant and key (null without one). */
  requestKey: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Refund = typeof Refund.Type;

const shown = ["amountMinor", "currency", "status", "failureReason", "createdAt", "updatedAt"] as const;

/** A refund as its merchant sees it (`payment_intent_id` on the wire, no provider reference). */
export const RefundView = Schema.Struct({
  id: Refund.fields.id,
  object: Schema.Literal("refund"),
  paymentIntentId: Refund.fields.intentId,
  ...Struct.pick(Refund.fields, ...shown),
});
export type RefundView = typeof RefundView.Type;
/** The refund view on the wire. */
export const RefundWire = wireShape(RefundView);

/** The merchant's view of `refund`. */
export const refundView = (refund: Refund): RefundView => ({
  id: refund.id,
  object: "refund",
  paymentIntentId: refund.intentId,
  ...Struct.pick(refund, ...shown),
});
