/**
 * The customer is notified (spec: OrderConfirmed → e-mail; ShipmentDispatched → customer
 * notified): one message per event with a stable id, so a redelivery repeats the same message;
 * a failing transport fails the delivery for the relay to retry and dead-letter.
 */
import { Schema } from "effect";
import t from "tap";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { notifyCustomer } from "../../core/commerce/Notifications.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore } from "./support.js";

t.test("receipt and shipment mails carry stable ids per event; a transport failure fails the delivery", (t) =>
  forEachCommerceDialect(t, "customer mail", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c);
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: "JD0001" }));
    const rows = await db.db.selectFrom("outbox").select(["type", "event"]).where("type", "in", ["OrderConfirmed", "ShipmentDispatched"]).execute();
    const envelopes = rows.map((r: { event: unknown }) => Schema.decodeUnknownSync(EventEnvelope)(typeof r.event === "string" ? JSON.parse(r.event) : r.event));
    const shipped = envelopes.find((e) => e.type === "ShipmentDispatched")!;
    const confirmed = envelopes.find((e) => e.type === "OrderConfirmed")!;

    await c.run(notifyCustomer(confirmed));
    await c.run(notifyCustomer(shipped));
    await c.run(notifyCustomer(shipped));
    t.equal(c.mail.sent.length, 3);
    t.equal(c.mail.sent[0]!.to, "ada@example.com");
    t.match(c.mail.sent[0]!.subject, /confirmed/);
    t.match(c.mail.sent[1]!.text, /JD0001/);
    t.equal(c.mail.sent[1]!.messageId, c.mail.sent[2]!.messageId, "a redelivery repeats the same message id");

    c.mail.failing = true;
    const failed = await c.attempt(notifyCustomer(shipped));
    t.equal(failed.ok, false, "the relay sees the failure and retries, then dead-letters");
  }),
);
