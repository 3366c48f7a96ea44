/**
 * A return authorization for shipped order lines. Stages (core/commerce/ReturnStatus.ts):
 * authorized → received → restocked | quarantined → refund_requested → closed (the refund is
 * confirmed), or refund_requested → refund_failed (the payment refused it) → refund_requested
 * (support asks again: the next refund attempt, sent under its own key).
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { OrderId, OrderLineId, ReturnId, StoreId } from "./Ids.js";

export const ReturnStatus = Schema.Literal("authorized", "received", "restocked", "quarantined", "refund_requested", "refund_failed", "closed");
export type ReturnStatus = typeof ReturnStatus.Type;

export const ReturnLine = Schema.Struct({ orderLineId: OrderLineId, quantity: Schema.Int });
export type ReturnLine = typeof ReturnLine.Type;

export const Return = Schema.Struct({
  id: ReturnId,
  storeId: StoreId,
  orderId: OrderId,
  status: ReturnStatus,
  /** The reason given with the return; null once guest retention cleared it. */
  reason: Schema.NullOr(Schema.String),
  lines: Schema.Array(wireShape(ReturnLine)),
  refundMinor: Schema.Int,
  /** Which refund of the return is (or was last) requested: 1, then one more each time support asks again after a refusal. */
  refundAttempt: Schema.Int,
  version: Schema.Int,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Return = typeof Return.Type;

/**
 * A return as its routes answer it: the record with its order's currency, in which `refund_minor`
 * is counted (docs/conventions.md, HTTP). The currency is the order's, read with it, not stored twice.
 */
export const ReturnView = Schema.Struct({ ...Return.fields, currency: Schema.String });
export type ReturnView = typeof ReturnView.Type;
export const ReturnWire = wireShape(ReturnView);

/** The return in its order's currency. */
export const returnView = (ret: Return, order: { readonly currency: string }): ReturnView => ({ ...ret, currency: order.currency });
