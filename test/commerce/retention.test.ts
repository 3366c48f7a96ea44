/**
 * Retention (spec: abandoned carts are hard-deleted after retention; guest data has retention;
 * orders are never deleted).
 */
import { Effect } from "effect";
import t from "tap";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { applyRetention } from "../../core/commerce/Retention.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { forEachCommerceDialect } from "./support.js";
import { checkoutInput, commerceRuntime, customer, cartWith, seedStore } from "./support.js";

const day = 24 * 60 * 60 * 1000;

t.test("abandoned carts are hard-deleted after retention and guest orders minimized, never deleted", (t) =>
  forEachCommerceDialect(t, "retention", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c);
    const abandoned = await cartWith(c, customer(), store.id, variant.id, 1);
    const guestCart = await c.run(createCart(null, store.id));
    const guest = { kind: "guest" as const, cartToken: guestCart.cartToken! };
    await c.run(setCartLine(guest, guestCart.cart.id, { variantId: variant.id, quantity: 1 }));
    const placed = await c.run(placeOrder(guest, checkoutInput(guestCart.cart.id)));
    await c.run(cancelOrder(guest, placed.order.id, { reason: "no longer needed" }));

    const soon = await c.later(10 * day, applyRetention);
    t.same(soon, { abandonedCarts: 0, checkedOutCarts: 0, guestOrders: 0, checkoutRiskSignals: 1, checkoutRiskLocks: 1 }, "nothing is removed within the retention but the checkout's day-old risk signal and its lock");
    const month = await c.later(31 * day, applyRetention);
    t.equal(month.abandonedCarts, 1, "an open cart untouched for 30 days is deleted");
    const carts = await db.db.selectFrom("shop_carts").select("id").execute();
    t.notOk(carts.some((r: { id: string }) => r.id === abandoned.id));
    const year = await c.later(366 * day, applyRetention);
    t.equal(year.checkedOutCarts, 1, "the guest's checked-out cart (and its token digest) is deleted");
    t.equal(year.guestOrders, 1, "the guest order is minimized");
    const order = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findOrder(placed.order.id)));
    t.equal(order?.status, "cancelled", "the order itself stays");
    t.equal(order?.email, null);
    t.same(order?.shippingAddress, { name: "", line1: "", line2: null, city: "", postcode: "", country: "GB" });
  }),
);

/**
 * Spec (E-commerce: "Stored addresses are minimized ... and guest data has retention"). A guest
 * order placed without an e-mail still has its address minimized after the retention: the
 * e-mail was the only mark of a minimized order, so such an order kept its full address forever.
 */
t.test("a guest order without an e-mail is minimized after retention too: its address is reduced to the country", (t) =>
  forEachCommerceDialect(t, "retention without e-mail", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c);
    const guestCart = await c.run(createCart(null, store.id));
    const guest = { kind: "guest" as const, cartToken: guestCart.cartToken! };
    await c.run(setCartLine(guest, guestCart.cart.id, { variantId: variant.id, quantity: 1 }));
    const placed = await c.run(placeOrder(guest, checkoutInput(guestCart.cart.id, { email: null })));
    await c.run(cancelOrder(guest, placed.order.id, { reason: "no longer needed" }));

    const year = await c.later(366 * day, applyRetention);
    t.equal(year.guestOrders, 1, "the guest order is minimized");
    const order = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findOrder(placed.order.id)));
    t.same(order?.shippingAddress, { name: "", line1: "", line2: null, city: "", postcode: "", country: "GB" }, "only the country is kept");
    const again = await c.later(367 * day, applyRetention);
    t.equal(again.guestOrders, 0, "a minimized order is not minimized again");
  }),
);
