/**
 * Who may touch what (spec, Authentication): customers reach their own carts and orders, guests
 * the cart (and its order) whose token they hold, staff act by role in their store. An object
 * the caller may not see answers NotFound — another customer's or another store's included.
 */
import { Effect } from "effect";
import { Forbidden, NotFound } from "../kernel/Errors.js";
import { CartsRepository } from "../../ports/commerce/CartsRepository.js";
import { CartTokens } from "../../ports/commerce/CartTokens.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import type { Cart } from "./model/Cart.js";
import type { Order } from "./model/Order.js";
import type { StaffRoleName } from "./model/StaffRole.js";
import type { Store } from "./model/Store.js";
import type { CartId, OrderId, StoreId } from "./model/Ids.js";

/** The caller of a shopping command: a signed-in customer or a guest with a cart token. */
export type Shopper =
  | { readonly kind: "customer"; readonly userId: string }
  | { readonly kind: "guest"; readonly cartToken: string };

/** The actor id written to timelines and events. */
export const shopperActor = (shopper: Shopper): string => (shopper.kind === "customer" ? `user:${shopper.userId}` : "guest");

/** Whether `shopper` owns `cart` (a guest's token is checked against the stored digest in constant time). */
const ownsCart = (shopper: Shopper, cart: Cart, tokens: CartTokens): boolean =>
  shopper.kind === "customer"
    ? cart.customerId === shopper.userId
    : cart.customerId === null && cart.tokenHash !== null && tokens.matches(shopper.cartToken, cart.tokenHash);

/** The shopper's cart, or NotFound. */
export const loadOwnedCart = (shopper: Shopper, cartId: CartId) =>
  Effect.gen(function* () {
    const cart = yield* (yield* CartsRepository).findCart(cartId);
    const tokens = yield* CartTokens;
    if (cart === null || !ownsCart(shopper, cart, tokens)) return yield* Effect.fail(new NotFound({ resource: "cart" }));
    return cart;
  });

/** The store, or NotFound. */
export const loadStore = (storeId: StoreId) =>
  Effect.flatMap(StoresRepository, (stores) => stores.findStore(storeId)).pipe(
    Effect.flatMap((store) => (store === null ? Effect.fail(new NotFound({ resource: "store" })) : Effect.succeed(store))),
  );

/**
 * Requires `role` (or owner) of `userId` in the store. A user with no role there learns nothing
 * (NotFound for staff-only objects is the caller's choice: `hidden`); with another role, Forbidden.
 */
export const requireStaffRole = (
  storeId: StoreId,
  userId: string,
  role: StaffRoleName,
): Effect.Effect<Store, NotFound | Forbidden, StoresRepository> =>
  Effect.gen(function* () {
    const store = yield* loadStore(storeId);
    const roles = yield* (yield* StoresRepository).rolesOf(storeId, userId);
    if (roles.length === 0) return yield* Effect.fail(new NotFound({ resource: "store" }));
    if (!roles.includes(role) && !roles.includes("owner")) return yield* Effect.fail(new Forbidden({ detail: `The ${role} role is required.` }));
    return store;
  });

/** Who reads or acts on an order: its shopper, or a support (or warehouse) staff member of its store. */
export type OrderActor = Shopper | { readonly kind: "staff"; readonly userId: string; readonly role: StaffRoleName };

/** The actor id of an order actor. */
export const orderActorId = (actor: OrderActor): string => (actor.kind === "staff" ? `staff:${actor.userId}` : shopperActor(actor));

/** The order if `actor` may see it, else NotFound. */
export const loadVisibleOrder = (actor: OrderActor, orderId: OrderId) =>
  Effect.gen(function* () {
    const order = yield* (yield* OrdersRepository).findOrder(orderId);
    if (order === null) return yield* Effect.fail(new NotFound({ resource: "order" }));
    const visible = yield* canSeeOrder(actor, order);
    if (!visible) return yield* Effect.fail(new NotFound({ resource: "order" }));
    return order;
  });

const canSeeOrder = (actor: OrderActor, order: Order) =>
  Effect.gen(function* () {
    switch (actor.kind) {
      case "customer":
        return order.customerId === actor.userId;
      case "guest": {
        if (order.customerId !== null) return false;
        const cart = yield* (yield* CartsRepository).findCart(order.cartId);
        return cart !== null && ownsCart(actor, cart, yield* CartTokens);
      }
      case "staff": {
        const roles = yield* (yield* StoresRepository).rolesOf(order.storeId, actor.userId);
        return roles.includes(actor.role) || roles.includes("owner");
      }
    }
  });
