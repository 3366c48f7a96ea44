/**
 * A refund of a delivered order made by support (spec: "Every manual reassignment, refund and
 * state override records actor and reason"): the amount, who asked for it and why, and where it
 * stands. `pending` until the payment gateway answers; then `refunded` or `failed` (with the
 * failure), once. The refunds of an order that did not fail never exceed its captured amount
 * (delivery migration 17).
 */
import { Schema } from "effect";
import { Currency } from "../../kernel/Money.js";
import { wireShape } from "../../kernel/Wire.js";
import { OrderId, RefundId } from "./Ids.js";

export const RefundStatus = Schema.Literal("pending", "refunded", "failed");
export type RefundStatus = typeof RefundStatus.Type;

export const Refund = Schema.Struct({
  id: RefundId,
  orderId: OrderId,
  amountMinor: Schema.Int.pipe(Schema.positive()),
  currency: Currency,
  status: RefundStatus,
  /** The dispatcher who asked for it. */
  actorId: Schema.String,
  reason: Schema.String,
  /** Why the payment refused it (failed only). */
  failure: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  /** When the outcome was recorded. */
  settledAt: Schema.NullOr(Schema.DateFromSelf),
});
export type Refund = typeof Refund.Type;
export const RefundWire = wireShape(Refund);

/** A refund as the order's customer sees it: amount and outcome, without support's actor, reason or failure code. */
export const CustomerRefund = Schema.Struct({
  id: Refund.fields.id,
  orderId: Refund.fields.orderId,
  amountMinor: Refund.fields.amountMinor,
  currency: Refund.fields.currency,
  status: Refund.fields.status,
  createdAt: Refund.fields.createdAt,
  settledAt: Refund.fields.settledAt,
});
export type CustomerRefund = typeof CustomerRefund.Type;
export const CustomerRefundWire = wireShape(CustomerRefund);

/** The customer's view of `refund`. */
export const customerRefundOf = ({ id, orderId, amountMinor, currency, status, createdAt, settledAt }: Refund): CustomerRefund => ({
  id,
  orderId,
  amountMinor,
  currency,
  status,
  createdAt,
  settledAt,
});
