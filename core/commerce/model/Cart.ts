/**
 * A server-authoritative cart. A customer's cart has `customerId`; a guest cart has none and is
 * reached with its cart token, stored only as a SHA-256 hex digest (`tokenHash`). Lines keep a
 * quantity, never a price: every answer is priced from the catalog now.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { PriceBreakdown } from "./Pricing.js";
import { CartId, StoreId, VariantId } from "./Ids.js";

export const CartStatus = Schema.Literal("open", "checked_out");
export type CartStatus = typeof CartStatus.Type;

export const Cart = Schema.Struct({
  id: CartId,
  storeId: StoreId,
  customerId: Schema.NullOr(Schema.String),
  tokenHash: Schema.NullOr(Schema.String),
  status: CartStatus,
  version: Schema.Int,
  /** The subtotal and total the shopper was last shown (null before the first priced answer): checkout compares them. */
  seenSubtotalMinor: Schema.NullOr(Schema.Int),
  seenTotalMinor: Schema.NullOr(Schema.Int),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Cart = typeof Cart.Type;

/** One line of a cart: a quantity (> 0) of a variant. */
export const CartLine = Schema.Struct({
  storeId: StoreId,
  cartId: CartId,
  variantId: VariantId,
  quantity: Schema.Int,
  addedAt: Schema.DateFromSelf,
});
export type CartLine = typeof CartLine.Type;

/**
 * A cart as its shopper reads it: the cart (never its token digest) priced now — lines with
 * unit price, discounts and tax, and the sums — plus the guest's cart token, shown once at creation.
 */
export const CartView = Schema.Struct({
  id: Cart.fields.id,
  storeId: Cart.fields.storeId,
  customerId: Cart.fields.customerId,
  status: Cart.fields.status,
  version: Cart.fields.version,
  createdAt: Cart.fields.createdAt,
  updatedAt: Cart.fields.updatedAt,
  ...PriceBreakdown.fields,
  cartToken: Schema.NullOr(Schema.String),
});
export type CartView = typeof CartView.Type;
export const CartViewWire = wireShape(CartView);

/** The view of `cart` priced as `price`; `cartToken` only when the cart was just created for a guest. */
export const cartView = (cart: Cart, price: PriceBreakdown, cartToken: string | null = null): CartView => ({
  id: cart.id,
  storeId: cart.storeId,
  customerId: cart.customerId,
  status: cart.status,
  version: cart.version,
  createdAt: cart.createdAt,
  updatedAt: cart.updatedAt,
  ...price,
  cartToken,
});
