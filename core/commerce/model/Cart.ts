/**
 * A server-authoritative cart. A customer's cart has `customerId`; a guest cart has none and is
 * reached with its cart token, stored only as a SHA-256 hex digest (`tokenHash`). Lines keep a
 * quantity, never a price: every answer is priced from the catalog now.
 */
import { Schema } from "effect";

export const CartStatus = Schema.Literal("open", "checked_out");
export type CartStatus = typeof CartStatus.Type;

export const Cart = Schema.Struct({
  id: Schema.String,
  storeId: Schema.String,
  customerId: Schema.NullOr(Schema.String),
  tokenHash: Schema.NullOr(Schema.String),
  status: CartStatus,
  version: Schema.Int,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Cart = typeof Cart.Type;

/** One line of a cart: a quantity (> 0) of a variant. */
export const CartLine = Schema.Struct({
  storeId: Schema.String,
  cartId: Schema.String,
  variantId: Schema.String,
  quantity: Schema.Int,
  addedAt: Schema.DateFromSelf,
});
export type CartLine = typeof CartLine.Type;
