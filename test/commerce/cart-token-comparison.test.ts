/**
 * Secrets are compared in constant time (docs/conventions.md: credentials "compared in constant
 * time"; spec, E-commerce Authentication: object-level checks on every cart and order). A guest's
 * cart token is checked against the cart's stored digest by CartTokens.matches (node:crypto
 * timingSafeEqual in the adapter), never by a string comparison in the core: reaching a cart or
 * its order as a guest goes through it, and a wrong token reaches nothing.
 */
import { Effect } from "effect";
import t from "tap";
import { loadOwnedCart, loadVisibleOrder } from "../../core/commerce/Access.js";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { CartTokens } from "../../ports/commerce/CartTokens.js";
import { checkoutInput, commerceRuntime, forEachCommerceDialect, seedStore } from "./support.js";

t.test("a guest's cart token is compared with the stored digest by CartTokens.matches (constant time), for its cart and its order", (t) =>
  forEachCommerceDialect(t, "cart token comparison", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const cart = await c.run(createCart(null, store.id));
    const guest = { kind: "guest" as const, cartToken: cart.cartToken! };
    await c.run(setCartLine(guest, cart.cart.id, { variantId: variant.id, quantity: 1 }));
    const placed = await c.run(placeOrder(guest, checkoutInput(cart.cart.id)));
    const tokens = await c.run(CartTokens);
    const compared: Array<readonly [string, string]> = [];
    const watched = CartTokens.of({
      ...tokens,
      matches: (token, digest) => {
        compared.push([token, digest]);
        return tokens.matches(token, digest);
      },
    });
    const asWatched = <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, CartTokens, watched);

    t.equal((await c.run(asWatched(loadOwnedCart(guest, cart.cart.id)))).id, cart.cart.id, "the guest reaches its cart");
    t.equal((await c.run(asWatched(loadVisibleOrder(guest, placed.order.id)))).id, placed.order.id, "and its order");
    t.equal(compared.length, 2, "each through CartTokens.matches");
    t.ok(compared.every(([token]) => token === guest.cartToken), "with the presented token");

    const stranger = { kind: "guest" as const, cartToken: (await c.run(tokens.issue)).token };
    const cartAttempt = await c.attempt(asWatched(loadOwnedCart(stranger, cart.cart.id)));
    const orderAttempt = await c.attempt(asWatched(loadVisibleOrder(stranger, placed.order.id)));
    t.same([cartAttempt.ok, orderAttempt.ok], [false, false], "another token reaches neither");
    t.equal(compared.length, 4, "refused by the same comparison");
  }),
);
