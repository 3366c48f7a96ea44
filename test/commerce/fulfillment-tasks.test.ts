/**
 * OrderConfirmed consumers are idempotent on redelivery (spec, Events: fulfillment keeps an
 * event receipt with a unique constraint so task creation is idempotent).
 */
import { randomUUID } from "node:crypto";
import { Effect, Schema } from "effect";
import t from "tap";
import { grantStaffRole } from "../../core/commerce/CreateStore.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { createFulfillmentTask, listFulfillmentTasks, takeFulfillmentTask } from "../../core/commerce/FulfillmentTasks.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, confirmedOrder, customer, seedStore } from "./support.js";

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
    const open = (await c.run(listFulfillmentTasks(ownerId, store.id, { cursor: null, limit: 50 }))).data;
    t.same(open.map((task) => task.orderId), [placed.order.id]);

    await c.run(dispatchShipment(ownerId, placed.order.id, { locationId: location.id, carrier: "UPS", trackingNumber: "1Z" }));
    t.same((await c.run(listFulfillmentTasks(ownerId, store.id, { cursor: null, limit: 50 }))).data, [], "the dispatched order's task is done");
  }),
);

/** The OrderConfirmed envelope of `orderId`, as the relay delivers it. */
const confirmedEnvelope = async (db: { db: { selectFrom: (t: string) => any } }, orderId: string) => {
  const rows: ReadonlyArray<{ event: unknown }> = await db.db.selectFrom("outbox").select("event").where("type", "=", "OrderConfirmed").execute();
  const envelopes = rows.map((row) => Schema.decodeUnknownSync(EventEnvelope)(typeof row.event === "string" ? JSON.parse(row.event) : row.event));
  return envelopes.find((e) => (e.data as { order_id: string }).order_id === orderId)!;
};

/**
 * Spec (States: "order | POST /v1/orders/:id/cancel | order not yet dispatched | cancellation
 * requested"; Authentication 2: warehouse operators work their fulfillment tasks). Once an order's
 * cancellation is requested nothing of it may ship: its task leaves the open list, and an
 * OrderConfirmed delivered late (after the cancellation, or after the dispatch) opens no task.
 */
t.test("a cancelled order's fulfillment task is closed, and a late OrderConfirmed opens none for an order no longer confirmed", (t) =>
  forEachCommerceDialect(t, "tasks of cancelled orders", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c);
    const order = async () => {
      const shopper = customer();
      const cart = await cartWith(c, shopper, store.id, variant.id, 1);
      const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
      return { shopper, id: placed.order.id, envelope: await confirmedEnvelope(db, placed.order.id) };
    };
    const open = async () => (await c.run(listFulfillmentTasks(ownerId, store.id, { cursor: null, limit: 50 }))).data.map((task) => task.orderId);

    const taskFirst = await order();
    t.equal(await c.run(createFulfillmentTask(taskFirst.envelope)), true);
    await c.run(cancelOrder(taskFirst.shopper, taskFirst.id, { reason: "" }));
    t.same(await open(), [], "the cancelled order's task is no longer open");

    const cancelledFirst = await order();
    await c.run(cancelOrder(cancelledFirst.shopper, cancelledFirst.id, { reason: "" }));
    t.equal(await c.run(createFulfillmentTask(cancelledFirst.envelope)), false, "a late OrderConfirmed of a cancelled order opens no task");

    const dispatchedFirst = await order();
    await c.run(dispatchShipment(ownerId, dispatchedFirst.id, { locationId: location.id, carrier: "UPS", trackingNumber: `1Z-${dispatchedFirst.id}` }));
    t.equal(await c.run(createFulfillmentTask(dispatchedFirst.envelope)), false, "a late OrderConfirmed of a dispatched order opens no task");
    t.same(await open(), [], "no task is left open");
  }),
);

/**
 * Spec (Authentication 2: warehouse operators work their "assigned fulfillment tasks"; States:
 * conditional updates decide races). Ten warehouse operators take the same open task at once (on
 * Postgres over parallel connections): exactly one holds it, the nine others answer 409
 * fulfillment_task_taken, and the order's timeline records one take, which its customer does not
 * see. The database keeps the assignee and its time together.
 */
t.test("of operators taking the same fulfillment task at once exactly one holds it; the others are 409 fulfillment_task_taken", (t) =>
  forEachCommerceDialect(t, "take race", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c);
    const { shopper, placed } = await confirmedOrder(c, store.id, variant.id);
    t.equal(await c.run(createFulfillmentTask(await confirmedEnvelope(db, placed.order.id))), true);
    const [task] = (await c.run(listFulfillmentTasks(ownerId, store.id, { cursor: null, limit: 50 }))).data;
    if (task === undefined) throw new Error("no task");
    const operators = Array.from({ length: 10 }, () => randomUUID());
    for (const userId of operators) await c.run(grantStaffRole(ownerId, store.id, { userId, role: "warehouse_operator" }));

    const results = await Promise.all(operators.map((userId) => c.attempt(takeFulfillmentTask(userId, task.id))));
    const winners = operators.filter((_, i) => results[i]!.ok);
    t.equal(winners.length, 1, "exactly one operator holds the task");
    t.same(
      results.flatMap((r) => (r.ok ? [] : [(r.error as { code: string }).code])),
      Array.from({ length: 9 }, () => "fulfillment_task_taken"),
      "every other take is 409 fulfillment_task_taken",
    );
    const held = await c.run(Effect.flatMap(OrdersRepository, (orders) => orders.findFulfillmentTask(task.id)));
    t.equal(held?.assigneeId, winners[0]);
    const staffView = await c.run(getOrder({ kind: "staff", userId: ownerId, role: "support" }, placed.order.id));
    t.same(staffView.timeline.filter((e) => e.kind === "fulfillment.taken").map((e) => e.actorId), [`staff:${winners[0]}`], "one take is written");
    const ownView = await c.run(getOrder(shopper, placed.order.id));
    t.same(ownView.timeline.filter((e) => e.kind.startsWith("fulfillment.")), [], "the customer does not see who holds the task");

    const refused = await db.db.updateTable("shop_fulfillment_tasks").set({ assigned_at: null }).where("id", "=", task.id).execute().then(
      () => "accepted",
      () => "refused",
    );
    t.equal(refused, "refused", "the database refuses an assignee without the time it was assigned");
  }),
);
