/**
 * Cancellation and fulfillment (spec, E-commerce: POST /v1/orders/:id/cancel is state-aware;
 * after dispatch it is 409; a dispatch consumes the reservation and the shipped amount is
 * captured). Compensations act on the real in-process payment gateway.
 */
import { Effect } from "effect";
import t from "tap";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore, type CommerceRuntime } from "./support.js";

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
