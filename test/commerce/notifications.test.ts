/**
 * The customer is notified (spec: OrderConfirmed → e-mail; ShipmentDispatched → customer
 * notified): the consumer schedules one mail job per event (a redelivery schedules nothing new)
 * and no mail leaves inside the consumer's transaction; the job sends one message with a stable
 * id, so a retried job repeats the same message; a failing transport fails the job for the
 * runner to retry and dead-letter.
 */
import { Schema } from "effect";
import t from "tap";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { customerMailJob, notifyCustomer, sendCustomerMail } from "../../core/commerce/Notifications.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { OrderId } from "../../core/commerce/model/Ids.js";
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
    t.equal(c.mail.sent.length, 0, "the consumer sends nothing itself");
    const jobs = await db.db.selectFrom("jobs").select(["kind", "key", "payload"]).where("kind", "=", customerMailJob.kind).orderBy("key").execute();
    t.same(jobs.map((j: { key: string | null }) => j.key).sort(), [confirmed.id, shipped.id].sort(), "one job per event, keyed by it");
    const payloadOf = (eventId: string) => {
      const row = jobs.find((j: { key: string | null }) => j.key === eventId)!;
      return Schema.decodeUnknownSync(Schema.Struct({ event_id: Schema.String, order_id: OrderId, shipment: Schema.NullOr(Schema.Struct({ carrier: Schema.String, tracking_number: Schema.String })) }))(
        typeof row.payload === "string" ? JSON.parse(row.payload) : row.payload,
      );
    };
    await c.run(sendCustomerMail(payloadOf(confirmed.id)));
    await c.run(sendCustomerMail(payloadOf(shipped.id)));
    await c.run(sendCustomerMail(payloadOf(shipped.id)));
    t.equal(c.mail.sent.length, 3);
    t.equal(c.mail.sent[0]!.to, "ada@example.com");
    t.match(c.mail.sent[0]!.subject, /confirmed/);
    t.match(c.mail.sent[1]!.text, /JD0001/);
    t.equal(c.mail.sent[1]!.messageId, c.mail.sent[2]!.messageId, "a retried job repeats the same message id");

    c.mail.failing = true;
    const failed = await c.attempt(sendCustomerMail(payloadOf(shipped.id)));
    t.equal(failed.ok, false, "the job fails; the runner retries it, then dead-letters it");
  }),
);
