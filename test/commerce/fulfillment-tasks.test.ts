/**
 * OrderConfirmed consumers are idempotent on redelivery (spec, Events: fulfillment keeps an
 * event receipt with a unique constraint so task creation is idempotent).
 */
import { Schema } from "effect";
import t from "tap";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { createFulfillmentTask, openFulfillmentTasks } from "../../core/commerce/FulfillmentTasks.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore } from "./support.js";

t.test("a redelivered OrderConfirmed creates one fulfillment task; dispatch completes it", (t) =>
  forEachCommerceDialect(t, "fulfillment tasks", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c);
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const row = await db.db.selectFrom("outbox").select("event").where("type", "=", "OrderConfirmed").executeTakeFirstOrThrow();
    const raw: unknown = typeof row.event === "string" ? JSON.parse(row.event) : row.event;
    const envelope = Schema.decodeUnknownSync(EventEnvelope)(raw);

    const deliveries = await Promise.all([1, 2, 3].map(() => c.run(createFulfillmentTask(envelope))));
    t.same(deliveries.filter(Boolean).length, 1, "only the first delivery creates the task");
    const again = await c.run(createFulfillmentTask({ ...envelope, id: `${envelope.id}-other` }));
    t.equal(again, false, "a second event about the same order creates no second task");
    const open = await c.run(openFulfillmentTasks(ownerId, store.id));
    t.same(open.map((task) => task.orderId), [placed.order.id]);

    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "UPS", trackingNumber: "1Z" }));
    t.same(await c.run(openFulfillmentTasks(ownerId, store.id)), [], "the dispatched order's task is done");
  }),
);
