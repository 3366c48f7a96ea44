/**
 * Events state only what their transaction committed (spec, E-commerce Events: ShipmentDispatched
 * "Fulfillment to notifications, order projection"; the capture runs after the dispatch's commit
 * and may fail and be retried). ShipmentDispatched (version 2) carries the shipment and no
 * captured amount; the amount captured is published by OrderCaptured, in the transaction that
 * records the capture, once.
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { captureOrder, dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { commerceRuntime, confirmedOrder, forEachCommerceDialect, seedStore } from "./support.js";

const eventsOf = async (db: SqlDatabase, orderId: string) =>
  ((await db.db.selectFrom("outbox").select("event").execute()) as ReadonlyArray<{ event: unknown }>)
    .map((r) => Schema.decodeUnknownSync(EventEnvelope)(typeof r.event === "string" ? JSON.parse(r.event) : r.event))
    .filter((e) => e.aggregate_id === orderId);

t.test("ShipmentDispatched states no captured amount before the capture is recorded; OrderCaptured states it once it is", (t) =>
  forEachCommerceDialect(t, "capture events", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const { placed } = await confirmedOrder(c, store.id, variant.id, 2);
    const orderId = placed.order.id;
    const orders = await c.run(OrdersRepository);
    // The capture after the dispatch's commit cannot be recorded now (its job retries it).
    await c.run(
      Effect.provideService(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `CE-${orderId}` }), OrdersRepository, {
        ...orders,
        appendTimeline: (entry) => (entry.kind === "payment.captured" ? Effect.die(new Error("timeline unavailable")) : orders.appendTimeline(entry)),
      }),
    );
    t.equal((await c.run(orders.findPayment(orderId)))?.status, "authorized", "nothing captured is recorded yet");
    const dispatched = (await eventsOf(db, orderId)).filter((e) => e.type === "ShipmentDispatched");
    t.equal(dispatched.length, 1);
    t.notOk("captured_minor" in (dispatched[0]!.data as object), "the dispatch states no captured amount");
    t.equal((await eventsOf(db, orderId)).filter((e) => e.type === "OrderCaptured").length, 0, "no capture is published before it is recorded");

    await c.run(captureOrder(orderId));
    await c.run(captureOrder(orderId));
    const captured = (await eventsOf(db, orderId)).filter((e) => e.type === "OrderCaptured");
    t.equal(captured.length, 1, "the recorded capture is published once");
    t.same(captured[0]?.data, { order_id: orderId, captured_minor: placed.order.totalMinor, currency: placed.order.currency }, "with the amount captured");
  }),
);
