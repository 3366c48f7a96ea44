/**
 * Spec (E-commerce: "guest data has retention"). A guest's free text — the reason given with a
 * cancellation (on the append-only timeline) and a return's reason — is kept where retention
 * clears it: after guest retention no table of the module holds it, while the orders, their
 * timelines and the returns stay. Before that the timeline still shows each reason.
 */
import { Effect } from "effect";
import t from "tap";
import { randomUUID } from "node:crypto";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { applyRetention } from "../../core/commerce/Retention.js";
import { createReturn } from "../../core/commerce/Returns.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { commerceRuntime, everyCommerceRow, forEachCommerceDialect, guestOrder, seedStore } from "./support.js";

const day = 24 * 60 * 60 * 1000;

t.test("after guest retention no guest free text remains: cancellation and return reasons are cleared, orders and timelines stay", (t) =>
  forEachCommerceDialect(t, "guest free text", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const cancelText = `call me on 555-${randomUUID()}`;
    const returnText = `my flat at 7 ${randomUUID()} Road`;

    const cancelled = await guestOrder(c, store.id, variant.id);
    await c.run(cancelOrder(cancelled.guest, cancelled.orderId, { reason: cancelText }));
    const returned = await guestOrder(c, store.id, variant.id);
    await c.run(dispatchShipment(ownerId, returned.orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `GT-${returned.orderId}` }));
    const lineId = (await c.run(getOrder(returned.guest, returned.orderId))).lines[0]!.id;
    const ret = await c.run(createReturn(returned.guest, { orderId: returned.orderId, lines: [{ orderLineId: lineId, quantity: 1 }], reason: returnText }));

    const reasonsOn = async (guest: typeof cancelled.guest, orderId: typeof cancelled.orderId) =>
      (await c.run(getOrder(guest, orderId))).timeline.map((e) => (e.detail as { reason?: unknown }).reason).filter((r) => r !== undefined);
    t.ok((await reasonsOn(cancelled.guest, cancelled.orderId)).includes(cancelText), "the timeline shows the cancellation's reason");
    t.ok((await reasonsOn(returned.guest, returned.orderId)).includes(returnText), "and the return's");
    t.equal((await c.run(Effect.flatMap(OrdersRepository, (o) => o.findReturn(ret.id))))?.reason, returnText, "the return keeps its reason until then");

    const year = await c.later(366 * day, applyRetention);
    t.equal(year.guestOrders, 2, "both guest orders are minimized");
    const stored = await everyCommerceRow(db);
    t.notOk(stored.includes(cancelText), "no table holds the cancellation's reason");
    t.notOk(stored.includes(returnText), "no table holds the return's reason");
    t.equal((await db.db.selectFrom("shop_returns").select("id").where("id", "=", ret.id).execute()).length, 1, "the return stays");
    const timeline = (await c.run(getOrder({ kind: "staff", userId: ownerId, role: "support" }, cancelled.orderId))).timeline;
    t.ok(timeline.some((e) => e.kind === "order.cancellation_requested"), "the timeline keeps the entry, without the text");
  }),
);

t.test("the database keeps a shopper's text as written until it is cleared: never rewritten, never deleted", (t) =>
  forEachCommerceDialect(t, "texts only cleared", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const cancelled = await guestOrder(c, store.id, variant.id);
    await c.run(cancelOrder(cancelled.guest, cancelled.orderId, { reason: "changed my mind" }));
    const returned = await guestOrder(c, store.id, variant.id);
    await c.run(dispatchShipment(ownerId, returned.orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `GT2-${returned.orderId}` }));
    const lineId = (await c.run(getOrder(returned.guest, returned.orderId))).lines[0]!.id;
    const ret = await c.run(createReturn(returned.guest, { orderId: returned.orderId, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "too big" }));
    const refused = async (what: string, run: () => Promise<unknown>) =>
      t.equal(await run().then(() => "accepted", () => "refused"), "refused", `the database refuses ${what}`);
    const note = () => db.db.updateTable("shop_order_notes").where("order_id", "=", cancelled.orderId);
    await refused("a note rewritten", () => note().set({ body: "something else" }).execute());
    await refused("a note moved to another order", () => note().set({ order_id: returned.orderId }).execute());
    await refused("a note deleted", () => db.db.deleteFrom("shop_order_notes").where("order_id", "=", cancelled.orderId).execute());
    await refused("a return's reason rewritten", () => db.db.updateTable("shop_returns").set({ reason: "fine after all" }).where("id", "=", ret.id).execute());
    await note().set({ body: null, cleared_at: featuresFor(db).timeToDb(new Date()) }).execute();
    await db.db.updateTable("shop_returns").set({ reason: null }).where("id", "=", ret.id).execute();
    t.pass("clearing both is accepted");
    const view = await c.run(getOrder(cancelled.guest, cancelled.orderId));
    t.same(view.timeline.filter((e) => e.kind === "order.cancellation_requested").map((e) => (e.detail as { reason: unknown }).reason), [null], "a cleared text reads as null");
  }),
);
