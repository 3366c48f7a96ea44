/**
 * The order's payment record: what the order knows of its gateway payment. `idempotencyKey` is
 * derived from the order (`order:<id>/authorize`), so every retry, job and replay authorizes
 * the same payment. `paymentMethod` is a provider token (never card data) and is not part of
 * any answer.
 */
import { Schema } from "effect";
import { OrderId, StoreId } from "./Ids.js";

export const OrderPaymentStatus = Schema.Literal(
  "authorizing",
  "unknown",
  "authorized",
  "declined",
  "voided",
  "captured",
  "refunded",
);
export type OrderPaymentStatus = typeof OrderPaymentStatus.Type;

export const OrderPayment = Schema.Struct({
  orderId: OrderId,
  storeId: StoreId,
  merchantId: Schema.String,
  paymentId: Schema.NullOr(Schema.String),
  idempotencyKey: Schema.String,
  paymentMethod: Schema.String,
  status: OrderPaymentStatus,
  amountMinor: Schema.Int,
  capturedMinor: Schema.Int,
  refundedMinor: Schema.Int,
  updatedAt: Schema.DateFromSelf,
});
export type OrderPayment = typeof OrderPayment.Type;
