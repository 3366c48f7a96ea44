/**
 * The idempotency record of order creation (spec, Relationships 6): key and payload fingerprint
 * scoped to the account (`user:<id>`) or the guest cart (`cart:<id>`), and the order it made.
 * The same key and payload answers that order again; another payload under the key is refused.
 */
import { Schema } from "effect";
import { OrderId, StoreId } from "./Ids.js";

export const CheckoutRequest = Schema.Struct({
  storeId: StoreId,
  scope: Schema.String,
  idempotencyKey: Schema.String,
  payloadHash: Schema.String,
  orderId: OrderId,
  createdAt: Schema.DateFromSelf,
});
export type CheckoutRequest = typeof CheckoutRequest.Type;
