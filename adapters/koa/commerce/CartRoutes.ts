/**
 * Routes of server-authoritative carts. A signed-in customer's cart is theirs; a request without
 * credentials creates a guest cart, answered once with its `cart_token`, which the guest then
 * presents as `Authorization: Bearer <cart_token>` for that cart and its checkout and order.
 */
import { Effect } from "effect";
import { shopperOf } from "../../../core/commerce/Callers.js";
import { createCart, getCart, setCartLine } from "../../../core/commerce/Carts.js";
import { CartViewWire, cartView } from "../../../core/commerce/model/Cart.js";
import { Forbidden } from "../../../core/kernel/Errors.js";
import { defineRoute } from "../Route.js";
import { CartLineBody, CreateCartBody } from "./CartSchemas.js";
import { CartParams } from "./StoreSchemas.js";

const tags = ["commerce"];
// A cart's answers are its shopper's alone: nobody may cache them. Each carries the cart's version as its ETag.
const privately = { "Cache-Control": "no-store" };

/** POST /v1/carts — a customer's cart, or without credentials a guest cart with its token (shown once). */
export const createCartRoute = defineRoute({
  method: "POST",
  path: "/v1/carts",
  operationId: "createCart",
  summary: "Create a cart: the signed-in customer's, or without credentials a guest cart with its cart_token (shown once)",
  tags,
  auth: "optional",
  answersEtag: "version",
  // A guest has no principal to scope a key to; creating an empty cart twice harms nobody.
  idempotency: "none",
  body: CreateCartBody,
  responses: { 201: CartViewWire },
  problems: [403, 404],
  handler: ({ principal, body }) =>
    Effect.gen(function* () {
      if (principal !== undefined && principal.kind !== "user") {
        return yield* Effect.fail(new Forbidden({ detail: "Carts belong to signed-in customers or, without credentials, to guests." }));
      }
      const created = yield* createCart(principal === undefined ? null : principal.userId, body.store_id);
      return { status: 201, body: cartView(created.cart, created.price, created.cartToken), headers: privately, etag: created.cart.version };
    }),
});

/** GET /v1/carts/:id — the shopper's cart priced now. */
export const getCartRoute = defineRoute({
  method: "GET",
  path: "/v1/carts/:id",
  operationId: "getCart",
  summary: "Read the cart priced server-side now (lines with unit price, discounts and tax; totals)",
  tags,
  auth: "required",
  answersEtag: "version",
  params: CartParams,
  responses: { 200: CartViewWire },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    Effect.flatMap(shopperOf(principal), (shopper) => getCart(shopper, params.id)).pipe(
      Effect.map(({ cart, price }) => ({ status: 200, body: cartView(cart, price), headers: privately, etag: cart.version })),
    ),
});

/** POST /v1/carts/:id/lines — add or replace a line (quantity 0 removes it). */
export const setCartLineRoute = defineRoute({
  method: "POST",
  path: "/v1/carts/:id/lines",
  operationId: "setCartLine",
  summary: "Add or replace a cart line (quantity 0 removes it); answers the cart priced now",
  description: "409 insufficient_stock when less is available; 409 variant_unavailable when the variant is not purchasable; 409 cart_checked_out; 422 for a quantity outside 0 to 1000 or a line beyond the cart's 100.",
  tags,
  auth: "required",
  answersEtag: "version",
  // Setting a quantity is idempotent by itself.
  idempotency: "none",
  params: CartParams,
  body: CartLineBody,
  responses: { 200: CartViewWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(shopperOf(principal), (shopper) => setCartLine(shopper, params.id, { variantId: body.variant_id, quantity: body.quantity })).pipe(
      Effect.map(({ cart, price }) => ({ status: 200, body: cartView(cart, price), headers: privately, etag: cart.version })),
    ),
});

/** Cart routes. */
export const cartRoutes = [createCartRoute, getCartRoute, setCartLineRoute];
