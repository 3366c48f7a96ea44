/**
 * Cancellation and fulfillment (spec, E-commerce: POST /v1/orders/:id/cancel is state-aware;
 * after dispatch it is 409; a dispatch consumes the reservation and the shipped amount is
 * captured). Compensations act on the real in-process payment gateway.
 */
import { Effect } from "effect";
import t from "tap";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { captureOrder, dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { releasePayment } from "../../core/commerce/PaymentRelease.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { commerceJobs } from "../../core/commerce/Jobs.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, confirmedOrder, customer, seedStore, seedStoreWithTwoLocations, unrecordedAuthorizationOrder, type CommerceRuntime } from "./support.js";
import { timelineEntries } from "./timeline.js";

const stockOf = (c: CommerceRuntime, variantId: string, locationId: string) =>
  c.run(Effect.flatMap(InventoryRepository, (i) => i.findStock(variantId, locationId)));

const paymentStatus = (c: CommerceRuntime, merchantId: string, paymentId: string) =>
  c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId, paymentId })));

t.test("cancelling a confirmed order voids its authorization, releases its stock and ends cancelled; again, it answers the same", (t) =>
  forEachCommerceDialect(t, "cancel", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, location, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 3);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 3);

    const cancelled = await c.run(cancelOrder(shopper, placed.order.id, { reason: "changed my mind" }));
    t.equal(cancelled.status, "cancelled");
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 0, "the stock is released");
    t.equal((await paymentStatus(c, store.merchantId, placed.order.paymentIntentRef!)).status, "canceled", "the authorization is voided");
    const again = await c.run(cancelOrder(shopper, placed.order.id, { reason: "changed my mind" }));
    t.equal(again.status, "cancelled");
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 0, "nothing is released twice");
    const view = await c.run(getOrder(shopper, placed.order.id));
    t.same(
      view.timeline.map((e) => e.kind),
      ["order.pending", "order.confirmed", "order.cancellation_requested", "payment.voided", "order.cancelled"],
      "the timeline shows each step with its actor",
    );
  }),
);

t.test("dispatch consumes the reservation and captures the order; cancelling after dispatch is 409 order_dispatched", (t) =>
  forEachCommerceDialect(t, "dispatch", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const shipment = await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: "TRACK123" }));
    t.equal(shipment.status, "dispatched");
    t.equal(shipment.amountMinor, placed.order.totalMinor);
    const level = await stockOf(c, variant.id, location.id);
    t.equal(level?.onHand, 3, "on_hand dropped");
    t.equal(level?.reserved, 0, "reserved dropped");
    const payment = await paymentStatus(c, store.merchantId, placed.order.paymentIntentRef!);
    t.equal(payment.status, "succeeded");
    t.equal(payment.capturedMinor, placed.order.totalMinor, "the shipped amount is captured");
    const refused = await c.attempt(cancelOrder(shopper, placed.order.id, { reason: "too late" }));
    t.equal(refused.ok ? null : (refused.error as { code: string }).code, "order_dispatched");
    const events = (await db.db.selectFrom("outbox").select("type").execute()).map((e: { type: string }) => e.type);
    t.ok(events.includes("ShipmentDispatched"), "ShipmentDispatched is published");
  }),
);

/** The orders repository of `c`, whose timeline appends fail (a database error between the two writes). */
const failingTimeline = async (c: CommerceRuntime) => {
  const orders = await c.run(OrdersRepository);
  return OrdersRepository.of({ ...orders, appendTimeline: () => Effect.die(new Error("timeline unavailable")) });
};

const paymentRecord = async (c: CommerceRuntime, orderId: string) => {
  const orders = await c.run(OrdersRepository);
  const payment = await c.run(orders.findPayment(orderId));
  const kinds = (await c.run(timelineEntries(orderId))).map((e) => e.kind);
  return { status: payment?.status, kinds };
};

t.test("a capture's payment record and its timeline entry commit together: a failure leaves neither, and the retry records both", (t) =>
  forEachCommerceDialect(t, "capture-atomic", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const { placed } = await confirmedOrder(c, store.id, variant.id);
    const broken = await failingTimeline(c);
    const failed = await c.attempt(Effect.provideService(captureOrder(placed.order.id), OrdersRepository, broken)).catch((error: unknown) => error);
    t.ok(failed instanceof Error, "the capture failed at its timeline entry");
    const between = await paymentRecord(c, placed.order.id);
    t.equal(between.status, "authorized", "the payment record is not marked captured");
    t.notOk(between.kinds.includes("payment.captured"), "and no entry was written");
    await c.run(captureOrder(placed.order.id));
    const after = await paymentRecord(c, placed.order.id);
    t.equal(after.status, "captured", "the retry (the capture job) marks it captured");
    t.equal(after.kinds.filter((k) => k === "payment.captured").length, 1, "with its timeline entry, once");
  }),
);

t.test("a void's payment record and its timeline entry commit together: a failure leaves neither, and the retry records both", (t) =>
  forEachCommerceDialect(t, "void-atomic", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 5 });
    const { placed } = await confirmedOrder(c, store.id, variant.id);
    const orders = await c.run(OrdersRepository);
    const payment = (await c.run(orders.findPayment(placed.order.id)))!;
    const broken = await failingTimeline(c);
    const failed = await c
      .attempt(Effect.provideService(releasePayment(placed.order, payment, "test"), OrdersRepository, broken))
      .catch((error: unknown) => error);
    t.ok(failed instanceof Error, "the void failed at its timeline entry");
    const between = await paymentRecord(c, placed.order.id);
    t.equal(between.status, "authorized", "the payment record is not marked voided");
    t.notOk(between.kinds.includes("payment.voided"), "and no entry was written");
    const current = (await c.run(orders.findPayment(placed.order.id)))!;
    await c.run(releasePayment(placed.order, current, "test"));
    const after = await paymentRecord(c, placed.order.id);
    t.equal(after.status, "voided", "the retry marks it voided");
    t.equal(after.kinds.filter((k) => k === "payment.voided").length, 1, "with its timeline entry, once");
  }),
);

t.test("a dispatch whose inline capture fails on a database error still answers the committed shipment; the capture job captures", (t) =>
  forEachCommerceDialect(t, "dispatch-capture-fails", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const { placed } = await confirmedOrder(c, store.id, variant.id);
    const orders = await c.run(OrdersRepository);
    const shipment = await c.run(
      Effect.provideService(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: "T1" }), OrdersRepository, {
        ...orders,
        // The shipment's own timeline entry is written in its transaction: only the capture's fails.
        appendTimeline: (entry) => (entry.kind === "payment.captured" ? Effect.die(new Error("timeline unavailable")) : orders.appendTimeline(entry)),
      }),
    );
    t.equal(shipment.status, "dispatched", "the committed shipment is the answer");
    t.equal((await paymentRecord(c, placed.order.id)).status, "authorized", "not captured yet");
    await c.host(60_000, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
    const after = await paymentRecord(c, placed.order.id);
    t.equal(after.status, "captured", "the capture job captured it");
    t.equal(after.kinds.filter((k) => k === "payment.captured").length, 1);
  }),
);


/**
 * Spec (E-commerce, States: "POST /v1/orders/:id/cancel | order dispatched | unchanged | 409";
 * Errors: "Cancellation after dispatch is rejected"). A shipment that has left one location is a
 * dispatch, even while the order waits for its other locations.
 */
t.test("cancellation after dispatch is rejected: once any shipment of a split order has left, cancel is 409 and the payment stays authorized", (t) =>
  forEachCommerceDialect(t, "cancel after partial dispatch", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, second, variant } = await seedStoreWithTwoLocations(c, { stock: 1 });
    const { shopper, placed } = await confirmedOrder(c, store.id, variant.id, 2);
    t.equal(placed.order.status, "confirmed");
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `P-${placed.order.id}` }));
    t.equal((await c.run(getOrder(shopper, placed.order.id))).status, "confirmed", "the order waits for its second location");
    const refused = await c.attempt(cancelOrder(shopper, placed.order.id, { reason: "changed my mind" }));
    t.equal(refused.ok ? "ok" : (refused.error as { code: string }).code, "order_dispatched");
    t.equal((await c.run(getOrder(shopper, placed.order.id))).status, "confirmed", "the order is unchanged");
    const payment = await paymentStatus(c, store.merchantId, placed.order.paymentIntentRef!);
    t.equal(payment.status, "requires_capture", "the authorization still stands");
    t.equal((await stockOf(c, variant.id, second.id))?.reserved, 1, "the unshipped unit is still held for its shipment");
  }),
);

/**
 * Spec (E-commerce, States: "POST /v1/orders/:id/cancel | order not yet dispatched | cancellation
 * requested (202)"). An order still `pending` (a crash left its authorization's answer unrecorded)
 * is not dispatched: its cancellation is accepted, and the payment-resolution job that checkout
 * scheduled finishes it once the answer is known.
 */
t.test("order not yet dispatched → cancellation requested (202): a pending order's cancellation is accepted, and the resolution job voids its authorization, releases its stock and ends it cancelled", (t) =>
  forEachCommerceDialect(t, "cancel pending", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, location, variant } = await seedStore(c, { stock: 5 });
    const { shopper, order } = await unrecordedAuthorizationOrder(c, store.id, variant.id, 2);
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 2);

    const requested = await c.attempt(cancelOrder(shopper, order.id, { reason: "changed my mind" }));
    t.same(requested.ok ? requested.value.status : requested.error, "cancellation_requested", "the cancellation is accepted");
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 2, "the stock is held until the payment's outcome is known");

    await c.host(31_000, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
    const orders = await c.run(OrdersRepository);
    t.equal((await c.run(orders.findOrder(order.id)))?.status, "cancelled", "the resolution job finished the cancellation");
    const payment = await c.run(orders.findPayment(order.id));
    t.equal(payment?.status, "voided");
    t.equal((await paymentStatus(c, store.merchantId, payment!.paymentId!)).status, "canceled", "the authorization is voided at the provider");
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 0, "the stock is released");
    const reservations = await c.run(Effect.flatMap(InventoryRepository, (i) => i.reservationsOfOrder(order.id)));
    t.ok(reservations.length > 0 && reservations.every((r) => r.status === "released"), "every reservation is released");
    const kinds = (await c.run(timelineEntries(order.id))).map((e) => e.kind);
    t.notOk(kinds.includes("order.confirmed"), "the order was never confirmed");
    t.same(
      kinds.filter((k) => k.startsWith("order.") || k === "payment.voided"),
      ["order.pending", "order.cancellation_requested", "payment.voided", "order.cancelled"],
    );
    // The test's database holds this one order's events.
    const events = (await db.db.selectFrom("outbox").select("type").execute()).map((e: { type: string }) => e.type);
    t.ok(events.includes("OrderCancelled"), "OrderCancelled is published");
    t.notOk(events.includes("OrderConfirmed"), "OrderConfirmed is not");
  }),
);

/**
 * Spec (E-commerce, States: "POST /v1/orders/:id/cancel | order not yet dispatched | cancellation
 * requested (202)"; "order | payment fails | | failed checkout | reservation released"). A pending
 * order whose authorization turns out declined holds nothing to void: the resolution job ends
 * its requested cancellation with its stock released.
 */
t.test("order not yet dispatched → cancellation requested (202): a pending order whose authorization was declined ends cancelled with nothing voided and its stock released", (t) =>
  forEachCommerceDialect(t, "cancel pending declined", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, location, variant } = await seedStore(c, { stock: 5 });
    const { shopper, order } = await unrecordedAuthorizationOrder(c, store.id, variant.id, 1, "pm_card_declined");
    const requested = await c.attempt(cancelOrder(shopper, order.id, { reason: "changed my mind" }));
    t.same(requested.ok ? requested.value.status : requested.error, "cancellation_requested", "the cancellation is accepted");
    await c.host(31_000, runJobsOnce(commerceJobs, { workerId: "jobs-test", concurrency: 1 }));
    const orders = await c.run(OrdersRepository);
    t.equal((await c.run(orders.findOrder(order.id)))?.status, "cancelled", "the resolution job finished the cancellation");
    t.equal((await c.run(orders.findPayment(order.id)))?.status, "declined", "nothing was held, nothing voided");
    t.equal((await stockOf(c, variant.id, location.id))?.reserved, 0, "the stock is released");
    const kinds = (await c.run(timelineEntries(order.id))).map((e) => e.kind);
    t.same(kinds.filter((k) => k.startsWith("order.")), ["order.pending", "order.cancellation_requested", "order.cancelled"]);
  }),
);

/**
 * Spec (E-commerce: "An order can split into shipments"; "keeps ... money, fulfillment ... correct").
 * A line of total 11 for 2 units shipped one unit from each of two locations: the shipments'
 * amounts are 6 and 5, adding up to what was sold, not 6 + 6.
 */
t.test("split shipments of one line carry amounts that add up to the line's total", (t) =>
  forEachCommerceDialect(t, "split shipment amounts", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, second, variant } = await seedStoreWithTwoLocations(c, { stock: 1, price: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 2);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    t.equal(placed.order.totalMinor, 11);
    const amounts = [];
    for (const at of [location.id, second.id]) {
      const shipment = await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: at, carrier: "DHL", trackingNumber: `A-${at}` }));
      amounts.push(shipment.amountMinor);
    }
    t.equal(amounts.reduce((a, b) => a + b, 0), 11, "the shipments add up to the order's total");
    t.same(amounts, [6, 5], "each rounded once, cumulatively");
  }),
);
