/**
 * Carts, shipments and fulfillment tasks move only forward, in the database too (spec, E-commerce:
 * "A cart is server-authoritative"; "An order can split into shipments"; Events: "Fulfillment keeps
 * an event receipt with a unique constraint so task creation is idempotent"; brief: every
 * transition the code forbids is refused by the database as well). A checked-out cart never
 * reopens (it could be checked out a second time); a shipment never leaves `delivered` or changes
 * what it carried; a done task never reopens, changes hands or moves to another order.
 */
import { Schema } from "effect";
import t from "tap";
import { createFulfillmentTask } from "../../core/commerce/FulfillmentTasks.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { applyTrackingUpdate } from "../../core/commerce/CarrierTracking.js";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { forEachCommerceDialect } from "./support.js";
import { commerceRuntime, confirmedOrder, seedStore } from "./support.js";

const refused = async (t: { ok: (v: unknown, m: string) => void }, what: string, run: () => Promise<unknown>) => {
  const outcome = await run().then(
    () => "accepted",
    () => "refused",
  );
  t.ok(outcome === "refused", `the database refuses ${what}`);
};

t.test("a checked-out cart never reopens, a delivered shipment never moves back, a done fulfillment task never reopens (also in the database)", (t) =>
  forEachCommerceDialect(t, "status moves", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const { placed } = await confirmedOrder(c, store.id, variant.id, 1);
    const orderId = placed.order.id;
    const q = db.db;

    const cartId = placed.order.cartId;
    await refused(t, "a checked-out cart reopened", () => q.updateTable("shop_carts").set({ status: "open" }).where("id", "=", cartId).execute());
    await refused(t, "a cart moved to another customer", () => q.updateTable("shop_carts").set({ customer_id: "someone-else" }).where("id", "=", cartId).execute());

    const rows: ReadonlyArray<{ event: unknown }> = await q.selectFrom("outbox").select("event").where("type", "=", "OrderConfirmed").execute();
    const envelope = rows
      .map((row) => Schema.decodeUnknownSync(EventEnvelope)(typeof row.event === "string" ? JSON.parse(row.event) : row.event))
      .find((e) => (e.data as { order_id: string }).order_id === orderId)!;
    t.equal(await c.run(createFulfillmentTask(envelope)), true);
    const tracking = `SM-${orderId}`;
    const shipment = await c.run(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: tracking }));
    await c.run(applyTrackingUpdate({ eventId: `delivered-${orderId}`, carrier: "DHL", trackingNumber: tracking, status: "delivered", occurredAt: new Date() }));
    const shipments = () => q.updateTable("shop_shipments").where("id", "=", shipment.id);
    await refused(t, "delivered → dispatched", () => shipments().set({ status: "dispatched" }).execute());
    await refused(t, "a change of the shipment's amount", () => shipments().set({ amount_minor: 1 }).execute());
    await refused(t, "a change of the shipment's tracking number", () => shipments().set({ tracking_number: "OTHER" }).execute());
    await refused(t, "a shipment DELETE", () => q.deleteFrom("shop_shipments").where("id", "=", shipment.id).execute());

    const tasks = () => q.updateTable("shop_fulfillment_tasks").where("order_id", "=", orderId);
    await refused(t, "a done task reopened", () => tasks().set({ status: "open" }).execute());
    await refused(t, "a done task given to someone", () => tasks().set({ assignee_id: "someone", assigned_at: db.dialect === "sqlite" ? new Date().toISOString() : new Date() }).execute());
    await refused(t, "a task DELETE", () => q.deleteFrom("shop_fulfillment_tasks").where("order_id", "=", orderId).execute());

    const cart = await q.selectFrom("shop_carts").select(["status"]).where("id", "=", cartId).executeTakeFirstOrThrow();
    const kept = await q.selectFrom("shop_shipments").select(["status", "tracking_number"]).where("id", "=", shipment.id).executeTakeFirstOrThrow();
    const task = await q.selectFrom("shop_fulfillment_tasks").select(["status", "assignee_id"]).where("order_id", "=", orderId).executeTakeFirstOrThrow();
    t.same([cart.status, kept.status, kept.tracking_number, task.status, task.assignee_id], ["checked_out", "delivered", tracking, "done", null], "each is as the code left it");
  }),
);
