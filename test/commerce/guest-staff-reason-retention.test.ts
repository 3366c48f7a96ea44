/**
 * Spec (E-commerce: "guest data has retention"; docs/decisions.md: free text on a guest order is
 * personal data of the guest's order and follows guest retention, the audit fact stays). A staff
 * member's reason written on a guest order — a support cancellation, each return stage, a refund
 * request, a fulfillment task's assignment and release — is kept as a note retention clears, and a
 * restock's stock adjustment names only its return (`return <id>`). After guest retention no table
 * of the module holds any of these texts, while the timeline still shows every transition with
 * its actor. Before that, the timeline shows each reason.
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { randomUUID } from "node:crypto";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { assignFulfillmentTask, createFulfillmentTask } from "../../core/commerce/FulfillmentTasks.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { applyRetention } from "../../core/commerce/Retention.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../core/commerce/Returns.js";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { commerceRuntime, everyCommerceRow, forEachCommerceDialect, guestOrder, seedStore } from "./support.js";

const day = 24 * 60 * 60 * 1000;

t.test("after guest retention no staff free text of a guest order remains; the timeline still shows the transitions", (t) =>
  forEachCommerceDialect(t, "guest staff reasons", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const support = { kind: "staff" as const, userId: ownerId, role: "support" as const };
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    const text = (what: string) => `${what}: the guest said call 555-${randomUUID()}`;
    const texts = {
      cancel: text("cancel"),
      received: text("received"),
      restocked: text("restocked"),
      refund: text("refund"),
      assigned: text("assigned"),
      released: text("released"),
    };

    const cancelled = await guestOrder(c, store.id, variant.id);
    await c.run(cancelOrder(support, cancelled.orderId, { reason: texts.cancel }));

    const returned = await guestOrder(c, store.id, variant.id);
    // Its fulfillment task, as the relay's delivery of OrderConfirmed opens it.
    const confirmed = (await db.db.selectFrom("outbox").select("event").where("type", "=", "OrderConfirmed").execute())
      .map((row) => Schema.decodeUnknownSync(EventEnvelope)(typeof row.event === "string" ? JSON.parse(row.event) : row.event))
      .find((e) => (e.data as { order_id: string }).order_id === returned.orderId)!;
    await c.run(createFulfillmentTask(confirmed));
    const task = await c.run(Effect.flatMap(OrdersRepository, (o) => o.fulfillmentTaskOfOrder(returned.orderId)));
    await c.run(assignFulfillmentTask(ownerId, task!.id, { assigneeId: ownerId, reason: texts.assigned }));
    await c.run(assignFulfillmentTask(ownerId, task!.id, { assigneeId: null, reason: texts.released }));
    await c.run(dispatchShipment(ownerId, returned.orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `GS-${returned.orderId}` }));
    const lineId = (await c.run(getOrder(returned.guest, returned.orderId))).lines[0]!.id;
    const ret = await c.run(createReturn(returned.guest, { orderId: returned.orderId, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "too small" }));
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: texts.received }));
    await c.run(advanceReturn(warehouse, ret.id, { to: "restocked", reason: texts.restocked }));
    await c.run(requestReturnRefund(support, ret.id, { reason: texts.refund }));

    const staffView = async (orderId: typeof cancelled.orderId) => (await c.run(getOrder(support, orderId))).timeline;
    const reasons = async (orderId: typeof cancelled.orderId) =>
      (await staffView(orderId)).map((e) => (e.detail as { reason?: unknown }).reason).filter((r) => r !== undefined);
    t.ok((await reasons(cancelled.orderId)).includes(texts.cancel), "before retention the timeline shows the support cancellation's reason");
    const shown = await reasons(returned.orderId);
    for (const what of ["received", "restocked", "refund", "assigned", "released"] as const) {
      t.ok(shown.includes(texts[what]), `and the ${what} reason`);
    }
    const adjustments = await db.db.selectFrom("shop_stock_adjustments").select("reason").where("reason", "like", "return %").execute();
    t.same(adjustments.map((a) => a.reason), [`return ${ret.id}`], "the restock's stock adjustment names only its return");

    const year = await c.later(366 * day, applyRetention);
    t.equal(year.guestOrders, 2, "both guest orders are minimized");
    const stored = await everyCommerceRow(db);
    for (const [what, written] of Object.entries(texts)) t.notOk(stored.includes(written), `no table holds the ${what} reason`);

    const transitions = async (orderId: typeof cancelled.orderId) =>
      (await staffView(orderId))
        .filter((e) => e.actorId === `staff:${ownerId}` && "reason" in (e.detail as object))
        .map((e) => [e.kind, (e.detail as { reason: unknown }).reason]);
    t.same(await transitions(cancelled.orderId), [["order.cancellation_requested", null]], "the cancellation stays on the timeline, its reason cleared");
    t.same(
      await transitions(returned.orderId),
      [
        ["fulfillment.assigned", null],
        ["fulfillment.released", null],
        ["return.received", null],
        ["return.restocked", null],
        ["return.refund_requested", null],
      ],
      "every staff transition stays on the timeline with its actor, its reason cleared",
    );
  }),
);
