/**
 * Checkout (spec, E-commerce: States and transitions, Endpoints rules 2 and 3): carts are priced
 * from the catalog, checkout reserves stock and authorizes outside the transaction, declines
 * release stock, the same key replays, and a timeout is never guessed.
 */
import { Effect } from "effect";
import t from "tap";
import { sql } from "kysely";
import { createCart, getCart, setCartLine } from "../../core/commerce/Carts.js";
import { createProduct, updateVariant } from "../../core/commerce/Catalog.js";
import { adjustStock } from "../../core/commerce/Inventory.js";
import { resolveOrderPayment } from "../../core/commerce/OrderPayments.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../core/commerce/Returns.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, pendingPaymentOrder, seedStore } from "./support.js";

const stock = (variantId: string, locationId: string) => Effect.flatMap(InventoryRepository, (i) => i.findStock(variantId, locationId));

t.test("cart prices are the catalog's now, never the client's; a changed total needs the customer's explicit confirmation", (t) =>
  forEachCommerceDialect(t, "authoritative prices", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { price: 1000 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const before = await c.run(getCart(shopper, cart.id));
    t.equal(before.price.subtotalMinor, 2000);
    t.equal(before.price.taxMinor, 200, "10% tax, rounded half up per line");
    t.equal(before.price.totalMinor, 2200);

    await c.run(updateVariant(ownerId, variant.id, { priceMinor: 1250, expectedVersion: variant.version }));
    const after = await c.run(getCart(shopper, cart.id));
    t.equal(after.price.lines[0]!.unitPriceMinor, 1250, "the cart is repriced from the catalog");
    t.equal(after.price.totalMinor, 2750);

    const stale = await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { expectedTotalMinor: 2200 })));
    t.equal(stale.ok, false);
    if (!stale.ok) {
      t.equal((stale.error as { code: string }).code, "price_changed");
      t.same((stale.error as { diff: unknown }).diff, { expected_total_minor: 2200, total_minor: 2750, currency: "EUR" });
    }
    const orderCount = await db.db.selectFrom("shop_orders").select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow();
    t.equal(Number(orderCount.n), 0, "nothing was written for the stale total");

    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id, { expectedTotalMinor: 2750 })));
    t.equal(placed.order.status, "confirmed");
    t.equal(placed.order.totalMinor, 2750);
    const view = await c.run(getOrder(shopper, placed.order.id));
    t.equal(view.lines[0]!.unitPriceMinor, 1250, "the order line snapshots the catalog price");
    t.ok(placed.order.paymentIntentRef, "the payment is referenced");
  }),
);

t.test("a confirmed checkout commits its reservations and publishes OrderConfirmed through the outbox with the order", (t) =>
  forEachCommerceDialect(t, "confirmed checkout", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, location, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 3);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    t.equal(placed.order.status, "confirmed");
    const level = await c.run(stock(variant.id, location.id));
    t.equal(level?.reserved, 3);
    t.equal(level?.onHand, 5);
    const reservations = await c.run(Effect.flatMap(InventoryRepository, (i) => i.reservationsOfOrder(placed.order.id)));
    t.same(reservations.map((r) => r.status), ["committed"]);
    const events = await db.db.selectFrom("outbox").selectAll().execute();
    const types = events.map((e) => JSON.stringify(e)).filter((e) => e.includes(placed.order.id));
    t.ok(types.some((e) => e.includes("OrderPlaced")), "OrderPlaced is in the outbox");
    t.ok(types.some((e) => e.includes("OrderConfirmed")), "OrderConfirmed is in the outbox");
    const view = await c.run(getOrder(shopper, placed.order.id));
    t.same(view.timeline.map((e) => e.kind), ["order.pending", "order.confirmed"], "the timeline records each state change");
  }),
);

t.test("a declined payment fails the order (402 payment_declined) and releases its reservations", (t) =>
  forEachCommerceDialect(t, "declined", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, location, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const declined = await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod: "pm_card_declined" })));
    t.equal(declined.ok, false);
    if (!declined.ok) t.equal((declined.error as { code: string }).code, "payment_declined");
    const [order] = await db.db.selectFrom("shop_orders").selectAll().execute();
    t.equal(order?.status, "failed");
    t.equal((await c.run(stock(variant.id, location.id)))?.reserved, 0, "the stock is available again");
  }),
);

t.test("the same Idempotency-Key and payload replays the order without a second authorization; another payload is 422", (t) =>
  forEachCommerceDialect(t, "idempotent checkout", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c);
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const input = checkoutInput(cart.id);
    const first = await c.run(placeOrder(shopper, input));
    const again = await c.run(placeOrder(shopper, input));
    t.equal(again.replayed, true);
    t.equal(again.order.id, first.order.id);
    t.equal(again.order.status, "confirmed");
    t.equal(c.provider.calls.filter((call) => call.operation === "authorize").length, 1, "one authorization");
    const other = await c.attempt(placeOrder(shopper, { ...input, email: "someone@else.example" }));
    t.equal(other.ok, false);
    if (!other.ok) t.equal((other.error as { code: string }).code, "idempotency_key_reused");
  }),
);

t.test("a payment timeout ends payment_pending, never confirmed or failed by guess, until the lookup resolves it", (t) =>
  forEachCommerceDialect(t, "payment timeout", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, location, variant } = await seedStore(c, { stock: 5 });
    const placed = await pendingPaymentOrder(c, store.id, variant.id, 2);
    t.equal(placed.order.status, "payment_pending");
    t.equal((await c.run(stock(variant.id, location.id)))?.reserved, 2, "the stock stays reserved");
    const jobs = await db.db.selectFrom("jobs").select(["kind", "status"]).where("kind", "=", "commerce.resolve-order-payment").execute();
    t.same(jobs, [{ kind: "commerce.resolve-order-payment", status: "pending" }], "a resolution job is scheduled");

    const early = await c.attempt(resolveOrderPayment(placed.order.id));
    t.equal(early.ok, false, "while the payment is processing, the job tries again later");
    t.equal((await c.run(Effect.flatMap(OrdersRepository, (o) => o.findOrder(placed.order.id))))?.status, "payment_pending");

    t.ok(placed.paymentId, "the payment id is known from the ambiguous answer");
    await c.payments.run(reconcileIntent(placed.paymentId!));
    const resolved = await c.run(resolveOrderPayment(placed.order.id));
    t.equal(resolved?.status, "confirmed", "the provider's answer, looked up, confirms the order");
  }),
);

t.test("a cart line is refused when the variant is unavailable or stock is short", (t) =>
  forEachCommerceDialect(t, "cart lines", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { stock: 3 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const tooMany = await c.attempt(setCartLine(shopper, cart.id, { variantId: variant.id, quantity: 4 }));
    t.equal(tooMany.ok ? null : (tooMany.error as { code: string }).code, "insufficient_stock");
    await c.run(updateVariant(ownerId, variant.id, { status: "inactive", expectedVersion: variant.version }));
    const inactive = await c.attempt(setCartLine(shopper, cart.id, { variantId: variant.id, quantity: 2 }));
    t.equal(inactive.ok ? null : (inactive.error as { code: string }).code, "variant_unavailable");
    const removed = await c.run(setCartLine(shopper, cart.id, { variantId: variant.id, quantity: 0 }));
    t.equal(removed.price.lines.length, 0, "quantity 0 removes the line");
  }),
);

/**
 * Spec (E-commerce, Resources): order total_minor "at least 0", variant price_minor "at least 0".
 * A free order is an order: it is confirmed without asking the payment provider for nothing,
 * and its dispatch and cancellation need no provider either.
 */
t.test("an order total may be 0: a free checkout is confirmed with no payment call; its dispatch and a cancellation need none", (t) =>
  forEachCommerceDialect(t, "zero total", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5, price: 0 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.attempt(placeOrder(shopper, checkoutInput(cart.id)));
    t.ok(placed.ok, "a free checkout is not declined");
    if (!placed.ok) return;
    t.equal(placed.value.order.totalMinor, 0);
    t.equal(placed.value.order.status, "confirmed");
    t.equal((await c.run(InventoryRepository.pipe(Effect.flatMap((i) => i.reservationsOfOrder(placed.value.order.id)))))[0]?.status, "committed", "its stock is held");
    await c.run(dispatchShipment(ownerId, placed.value.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `Z-${placed.value.order.id}` }));
    t.equal((await c.run(getOrder(shopper, placed.value.order.id))).status, "dispatched");
    const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(placed.value.order.id)));
    t.equal(payment?.status, "captured", "nothing to capture: the payment record is settled");
    const lineId = (await c.run(getOrder(shopper, placed.value.order.id))).lines[0]!.id;
    const ret = await c.run(createReturn(shopper, { orderId: placed.value.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "not needed" }));
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "arrived" }));
    await c.run(advanceReturn(warehouse, ret.id, { to: "quarantined", reason: "opened" }));
    const closed = await c.run(requestReturnRefund({ kind: "staff", userId: ownerId, role: "support" }, ret.id, { reason: "free item" }));
    t.equal(closed.status, "closed", "a return refund of 0 closes without the provider");

    const other = customer();
    const otherCart = await cartWith(c, other, store.id, variant.id, 1);
    const second = await c.run(placeOrder(other, checkoutInput(otherCart.id)));
    t.equal(second.order.status, "confirmed");
    const cancelled = await c.run(cancelOrder(other, second.order.id, { reason: "changed my mind" }));
    t.equal(cancelled.status, "cancelled", "a free order cancels at once");
    t.same(c.provider.calls, [], "the payment provider was never called");
  }),
);

/**
 * Spec (E-commerce, Errors): "A catalog price change that alters the total requires explicit
 * customer confirmation" (409). The cart keeps the prices its shopper last saw; a checkout that
 * does not confirm the new total (expected_total_minor) after a catalog change is refused.
 */
t.test("a catalog price change that alters the total requires explicit customer confirmation, even when the client sends no expected total", (t) =>
  forEachCommerceDialect(t, "unconfirmed price change", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { price: 1000 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    t.equal((await c.run(getCart(shopper, cart.id))).price.totalMinor, 2200, "the shopper sees 2,200");
    await c.run(updateVariant(ownerId, variant.id, { priceMinor: 1250, expectedVersion: variant.version }));
    const unconfirmed = await c.attempt(placeOrder(shopper, checkoutInput(cart.id)));
    t.equal(unconfirmed.ok ? "ok" : (unconfirmed.error as { code: string }).code, "price_changed", "checkout without confirmation is 409");
    if (!unconfirmed.ok) t.same((unconfirmed.error as { diff: unknown }).diff, { expected_total_minor: 2200, total_minor: 2750, currency: "EUR" });
    t.equal(c.provider.calls.length, 0, "nothing was charged");
    const confirmed = await c.run(placeOrder(shopper, checkoutInput(cart.id, { expectedTotalMinor: 2750 })));
    t.equal(confirmed.order.status, "confirmed", "confirming the new total checks out");
    t.equal(confirmed.order.totalMinor, 2750);
  }),
);

t.test("a checkout of the prices the shopper saw needs no confirmation", (t) =>
  forEachCommerceDialect(t, "unchanged prices", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { price: 1000 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    t.equal(placed.order.status, "confirmed");
  }),
);

/**
 * Conventions (Limits: "Every list, upload, body and batch has a bound"); spec (POST
 * /v1/carts/:id/lines, "Add or replace a cart line"). A cart holds at most 100 lines (as a
 * product holds at most 100 variants): the 101st variant is 422 on variant_id, while replacing or
 * removing a line of a full cart still works. Checkout prices and reserves every line in one
 * transaction, so an unbounded cart would make that transaction unbounded.
 */
t.test("a cart holds at most 100 lines: adding a 101st variant is 422, replacing a line of a full cart is not", (t) =>
  forEachCommerceDialect(t, "cart line bound", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location } = await seedStore(c, { stock: 0 });
    const variants = [];
    for (const batch of [100, 1]) {
      const product = await c.run(
        createProduct(ownerId, store.id, { title: `Mug ${batch}`, variants: Array.from({ length: batch }, (_, i) => ({ sku: `MUG-${batch}-${i}`, priceMinor: 100 })) }),
      );
      variants.push(...product.variants);
    }
    for (const v of variants) await c.run(adjustStock(ownerId, { variantId: v.id, locationId: location.id, delta: 5, reason: "stock" }));
    const shopper = customer();
    const { cart } = await c.run(createCart(shopper.userId, store.id));
    for (const v of variants.slice(0, 100)) await c.run(setCartLine(shopper, cart.id, { variantId: v.id, quantity: 1 }));
    const tooMany = await c.attempt(setCartLine(shopper, cart.id, { variantId: variants[100]!.id, quantity: 1 }));
    t.equal(tooMany.ok ? "ok" : (tooMany.error as { code: string }).code, "validation_failed", "the 101st line is 422");
    if (!tooMany.ok) t.same((tooMany.error as { errors: ReadonlyArray<{ path: string }> }).errors.map((e) => e.path), ["variant_id"]);
    const replaced = await c.run(setCartLine(shopper, cart.id, { variantId: variants[0]!.id, quantity: 2 }));
    t.equal(replaced.price.lines.length, 100, "a line of a full cart can be replaced");
    await c.run(setCartLine(shopper, cart.id, { variantId: variants[0]!.id, quantity: 0 }));
    const added = await c.run(setCartLine(shopper, cart.id, { variantId: variants[100]!.id, quantity: 1 }));
    t.equal(added.price.lines.length, 100, "after a removal there is room again");
  }),
);

/**
 * Spec (E-commerce: "Stored addresses are minimized"); conventions (Limits: every body has a
 * bound; Errors: 422 with the path). The address's second line and the e-mail are bounded like
 * the other fields (200 and 254 characters): longer is 422 on their paths, and nothing is written.
 */
t.test("an address line2 over 200 characters or an e-mail over 254 is 422 on its path, and no order is written", (t) =>
  forEachCommerceDialect(t, "address bounds", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const address = checkoutInput(cart.id).shippingAddress;
    const refused = await c.attempt(
      placeOrder(shopper, checkoutInput(cart.id, { shippingAddress: { ...address, line2: "x".repeat(201) }, email: `${"a".repeat(250)}@example.com` })),
    );
    t.equal(refused.ok ? "ok" : (refused.error as { code: string }).code, "validation_failed");
    if (!refused.ok) t.same((refused.error as { errors: ReadonlyArray<{ path: string }> }).errors.map((e) => e.path), ["shipping_address/line2", "email"]);
    t.equal(Number((await db.db.selectFrom("shop_orders").select(sql<number>`count(*)`.as("n")).executeTakeFirstOrThrow()).n), 0, "no order");
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id, { shippingAddress: { ...address, line2: "Flat 2" } })));
    t.equal(placed.order.status, "confirmed", "within the bounds checkout goes through");
  }),
);
