/**
 * Who calls the e-commerce API, from the host's principal (spec, Authentication): a signed-in
 * user is a customer (or, on store objects, staff by role), a guest holds one cart's token.
 * Other credentials (merchant keys, payment client secrets) reach nothing here: Forbidden.
 */
import { Effect } from "effect";
import { Forbidden, Unauthorized } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import { CartTokens } from "../../ports/commerce/CartTokens.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { OrderActor, Shopper } from "./Access.js";
import type { StaffRoleName } from "./model/StaffRole.js";
import { withSpan } from "../kernel/Span.js";
import type { OrderId } from "./model/Ids.js";

/** The shopper a principal is (customer or guest); Forbidden for any other credential. */
export const shopperOf = (principal: Principal): Effect.Effect<Shopper, Forbidden> => {
  switch (principal.kind) {
    case "user":
      return Effect.succeed({ kind: "customer", userId: principal.userId });
    case "guest":
      return Effect.succeed({ kind: "guest", cartToken: principal.cartToken });
    default:
      return Effect.fail(new Forbidden({ detail: "Shoppers sign in as users or present a guest cart token." }));
  }
};

/** The signed-in user of a staff or customer-only action; Forbidden for guests and other credentials. */
export const userOf = (principal: Principal): Effect.Effect<string, Forbidden> =>
  principal.kind === "user" ? Effect.succeed(principal.userId) : Effect.fail(new Forbidden({ detail: "This action needs a signed-in user." }));

/**
 * The actor of an order action: the order's own customer acts as customer; any other signed-in
 * user acts as staff with `role` (the core's order access then answers NotFound unless that user
 * holds the role in the order's store). Guests act as the holder of their cart token.
 */
export const orderActorOf = (principal: Principal, orderId: OrderId, role: StaffRoleName) =>
  Effect.gen(function* () {
    const shopper = yield* shopperOf(principal);
    if (shopper.kind === "guest") {
      const guest: OrderActor = shopper;
      return guest;
    }
    const order = yield* (yield* OrdersRepository).findOrder(orderId);
    const actor: OrderActor = order !== null && order.customerId === shopper.userId ? shopper : { kind: "staff", userId: shopper.userId, role };
    return actor;
  });

/** Authenticates a guest cart token (bearer): the guest principal of its cart, or Unauthorized. */
export const authenticateCartToken = (token: string) =>
  Effect.gen(function* () {
    const cart = yield* (yield* CartsRepository).findCartByTokenHash((yield* CartTokens).hash(token));
    if (cart === null || cart.customerId !== null) return yield* Effect.fail(new Unauthorized({ reason: "invalid", detail: "The cart token is not valid." }));
    const principal: Principal = { kind: "guest", cartId: cart.id, cartToken: token };
    return principal;
  }).pipe(withSpan("commerce.authenticateCartToken"));
