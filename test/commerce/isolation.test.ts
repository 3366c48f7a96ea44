/**
 * Object-level checks (spec, E-commerce: Authentication): another customer's cart or order,
 * a guest without the cart's token and staff of another store all get NotFound; staff with
 * another role get Forbidden.
 */
import { Effect } from "effect";
import t from "tap";
import { randomUUID } from "node:crypto";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { createCart, getCart, setCartLine } from "../../core/commerce/Carts.js";
import { grantStaffRole } from "../../core/commerce/CreateStore.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { adjustStock } from "../../core/commerce/Inventory.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, confirmedOrder, customer, seedStore } from "./support.js";
import { applyTrackingUpdate } from "../../core/commerce/CarrierTracking.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { timelineEntries } from "./timeline.js";

const codeOf = (r: { ok: boolean; error?: unknown }) => (r.ok ? "ok" : (r.error as { code: string }).code);

t.test("another customer's cart and order answer NotFound; a guest reaches its cart only with its token", (t) =>
  forEachCommerceDialect(t, "customer isolation", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c);
    const alice = customer();
    const mallory = customer();
    const cart = await cartWith(c, alice, store.id, variant.id, 1);
    t.equal(codeOf(await c.attempt(getCart(mallory, cart.id))), "not_found");
    t.equal(codeOf(await c.attempt(setCartLine(mallory, cart.id, { variantId: variant.id, quantity: 2 }))), "not_found");
    t.equal(codeOf(await c.attempt(placeOrder(mallory, checkoutInput(cart.id)))), "not_found");
    const placed = await c.run(placeOrder(alice, checkoutInput(cart.id)));
    t.equal(codeOf(await c.attempt(getOrder(mallory, placed.order.id))), "not_found");
    t.equal(codeOf(await c.attempt(cancelOrder(mallory, placed.order.id, { reason: "x" }))), "not_found");
    t.equal(codeOf(await c.attempt(getOrder({ kind: "guest", cartToken: "guess" }, placed.order.id))), "not_found");

    const guestCart = await c.run(createCart(null, store.id));
    const guest = { kind: "guest" as const, cartToken: guestCart.cartToken! };
    await c.run(setCartLine(guest, guestCart.cart.id, { variantId: variant.id, quantity: 1 }));
    t.equal(codeOf(await c.attempt(getCart({ kind: "guest", cartToken: "not-the-token" }, guestCart.cart.id))), "not_found");
    t.equal(codeOf(await c.attempt(getCart(alice, guestCart.cart.id))), "not_found", "a guest cart is no customer's");
    const guestOrder = await c.run(placeOrder(guest, checkoutInput(guestCart.cart.id)));
    t.equal(guestOrder.order.status, "confirmed", "guests check out with their cart token");
    t.equal((await c.run(getOrder(guest, guestOrder.order.id))).id, guestOrder.order.id);
  }),
);

t.test("staff act only in their own store and by role: another store's staff get NotFound, another role Forbidden", (t) =>
  forEachCommerceDialect(t, "staff isolation", async (t, db) => {
    const c = commerceRuntime(t, db);
    const a = await seedStore(c);
    const b = await seedStore(c);
    const shopper = customer();
    const cart = await cartWith(c, shopper, a.store.id, a.variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const dispatch = { locationId: a.location.id, carrier: "DHL", trackingNumber: "T1" };
    t.equal(codeOf(await c.attempt(dispatchShipment(b.ownerId, placed.order.id, dispatch))), "not_found", "another store's owner");
    t.equal(codeOf(await c.attempt(getOrder({ kind: "staff", userId: b.ownerId, role: "support" }, placed.order.id))), "not_found");
    const manager = randomUUID();
    await c.run(grantStaffRole(a.ownerId, a.store.id, { userId: manager, role: "catalog_manager" }));
    t.equal(
      codeOf(await c.attempt(adjustStock(manager, { variantId: a.variant.id, locationId: a.location.id, delta: 5, reason: "x" }))),
      "forbidden",
      "a catalog manager adjusts no stock",
    );
    t.equal(codeOf(await c.attempt(dispatchShipment(manager, placed.order.id, dispatch))), "not_found", "nor sees orders");
    const support = randomUUID();
    await c.run(grantStaffRole(a.ownerId, a.store.id, { userId: support, role: "support" }));
    t.equal((await c.run(getOrder({ kind: "staff", userId: support, role: "support" }, placed.order.id))).id, placed.order.id, "support sees the store's orders");
    t.equal(
      codeOf(await c.attempt(adjustStock(b.ownerId, { variantId: a.variant.id, locationId: a.location.id, delta: 5, reason: "x" }))),
      "not_found",
      "another store's variant",
    );
    t.equal(
      codeOf(await c.attempt(adjustStock(a.ownerId, { variantId: a.variant.id, locationId: a.location.id, delta: -20, reason: "shrinkage" }))),
      "stock_below_reserved",
      "an adjustment below reserved is 409",
    );
  }),
);

/**
 * Spec (E-commerce, Authentication: "Object-level checks apply to every cart, order, address and
 * return"; the store is the tenant). A carrier's tracking number names one parcel: a second store
 * dispatching the same number is refused, so a tracking update lands on the first store's shipment only.
 */
t.test("object-level checks apply to every order: a tracking number is one shipment, so another store cannot take a carrier's updates", (t) =>
  forEachCommerceDialect(t, "tracking number per parcel", async (t, db) => {
    const c = commerceRuntime(t, db);
    const first = await seedStore(c, { stock: 5 });
    const second = await seedStore(c, { stock: 5 });
    const firstOrder = await confirmedOrder(c, first.store.id, first.variant.id);
    const secondOrder = await confirmedOrder(c, second.store.id, second.variant.id);
    const trackingNumber = `SAME-${randomUUID()}`;
    const shipment = await c.run(dispatchShipment(first.ownerId, firstOrder.placed.order.id, { locationId: first.location.id, carrier: "DHL", trackingNumber }));
    const reused = await c.attempt(dispatchShipment(second.ownerId, secondOrder.placed.order.id, { locationId: second.location.id, carrier: "DHL", trackingNumber }));
    t.equal(reused.ok ? "ok" : (reused.error as { code: string }).code, "tracking_number_in_use", "the second store's dispatch is refused (409)");
    t.equal((await c.run(getOrder(secondOrder.shopper, secondOrder.placed.order.id))).status, "confirmed", "its order is unchanged");
    const receipt = await c.run(applyTrackingUpdate({ eventId: randomUUID(), carrier: "DHL", trackingNumber, status: "delivered", occurredAt: new Date() }));
    t.equal(receipt.shipmentId, shipment.id, "the update lands on the first store's shipment");
    const shipments = await c.run(Effect.flatMap(OrdersRepository, (o) => o.shipmentsOf(firstOrder.placed.order.id)));
    t.equal(shipments[0]?.status, "delivered");
    const timeline = await c.run(timelineEntries(secondOrder.placed.order.id));
    t.notOk(timeline.some((e) => e.kind.startsWith("shipment.")), "nothing reaches the other store's order");
  }),
);
