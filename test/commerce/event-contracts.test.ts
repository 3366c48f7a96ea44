/**
 * Consumer event schemas are contract-tested (spec, E-commerce Versioning; Events: OrderConfirmed,
 * ReservationExpired, ShipmentDispatched, and the module's OrderPlaced, OrderCancelled,
 * FulfillmentTaskAssigned, FulfillmentTaskStatusChanged, FulfillmentTaskLeftList, ReturnRefundFailed and OrderCaptured). ShipmentDispatched is at version 2
 * (no captured amount); its version 1 still decodes.
 * Frozen schema-version-1 envelopes, written out here as a consumer would receive them, decode
 * through the union the module's consumers use; the events the flows publish carry exactly those
 * fields; and a consumer never reads an envelope of a schema version it does not know as version 1.
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { randomUUID } from "node:crypto";
import { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { CommerceEvent } from "../../core/commerce/Events.js";
import { cancelOrder } from "../../core/commerce/CancelOrder.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { createFulfillmentTask, listFulfillmentTasks, takeFulfillmentTask } from "../../core/commerce/FulfillmentTasks.js";
import { notifyCustomer } from "../../core/commerce/Notifications.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { expireOrderReservations } from "../../core/commerce/ReservationExpiry.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../core/commerce/Returns.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, pendingPaymentOrder, seedStore } from "./support.js";

const id = "0192f0c4-0000-7000-8000-000000000001";
const envelope = (type: string, data: Record<string, unknown>, schemaVersion = 1) => ({
  id: randomUUID(),
  type,
  schema_version: schemaVersion,
  tenant_id: id,
  aggregate_id: id,
  aggregate_version: 2,
  occurred_at: "2026-11-28T08:00:00.000Z",
  actor_id: "user:x",
  data,
});

/** Version 1 of each event's data, as consumers rely on it. */
const v1: Record<string, Record<string, unknown>> = {
  OrderPlaced: { order_id: id, customer_id: null, total_minor: 1100, currency: "EUR" },
  OrderConfirmed: { order_id: id, customer_id: "c-1", total_minor: 1100, currency: "EUR", payment_intent_ref: "pi_1" },
  ReservationExpired: { reservation_id: id, order_id: id, variant_id: id, location_id: id, quantity: 2 },
  ShipmentDispatched: { shipment_id: id, order_id: id, location_id: id, carrier: "DHL", tracking_number: "T1", captured_minor: 1100 },
  OrderCancelled: { order_id: id, reason: "cancelled" },
  FulfillmentTaskAssigned: { task_id: id, order_id: id, assignee_id: "u-1" },
  FulfillmentTaskStatusChanged: { task_id: id, order_id: id, status: "open" },
  FulfillmentTaskLeftList: { task_id: id, operator_id: null },
  ReturnRefundFailed: { return_id: id, order_id: id, amount_minor: 550, currency: "EUR", attempt: 1 },
  OrderCaptured: { order_id: id, captured_minor: 1100, currency: "EUR" },
};

/** Later versions: ShipmentDispatched 2 states no captured amount (OrderCaptured does, once the capture is recorded). */
const later: Record<string, { readonly version: number; readonly data: Record<string, unknown> }> = {
  ShipmentDispatched: { version: 2, data: { shipment_id: id, order_id: id, location_id: id, carrier: "DHL", tracking_number: "T1" } },
};

/** What the flows publish now: the latest version of each event. */
const current = Object.fromEntries(Object.entries(v1).map(([type, data]) => [type, later[type] ?? { version: 1, data }]));

t.test("frozen envelopes of every commerce event and version decode through the consumers' union", (t) => {
  const frozen = [...Object.entries(v1).map(([type, data]) => ({ type, version: 1, data })), ...Object.entries(later).map(([type, l]) => ({ type, ...l }))];
  for (const { type, version, data } of frozen) {
    const decoded = Schema.decodeUnknownEither(CommerceEvent)(envelope(type, data, version));
    t.equal(decoded._tag, "Right", `${type} v${version} decodes`);
    if (decoded._tag === "Right") t.same(decoded.right.data, data, `${type} v${version} keeps its fields`);
  }
  t.end();
});

t.test("the events the flows publish are their latest version with exactly the contract's fields", (t) =>
  forEachCommerceDialect(t, "published events", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 10 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const shipped = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    await c.run(dispatchShipment(ownerId, shipped.order.id, { locationId: location.id, carrier: "DHL", trackingNumber: `C-${randomUUID()}` }));
    // A return of it whose refund the payment refuses.
    const lineId = (await c.run(getOrder(shopper, shipped.order.id))).lines[0]!.id;
    const ret = await c.run(createReturn(shopper, { orderId: shipped.order.id, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "in" }));
    await c.run(advanceReturn(warehouse, ret.id, { to: "quarantined", reason: "chipped" }));
    const gateway = await c.run(PaymentGateway);
    const refusing = PaymentGateway.of({ ...gateway, refund: (r) => Effect.succeed({ refundId: "refused", paymentId: r.paymentId, amount: r.amount, status: "failed" as const }) });
    await c.run(Effect.provideService(requestReturnRefund({ kind: "staff", userId: ownerId, role: "support" }, ret.id, { reason: "refund" }), PaymentGateway, refusing));
    const other = customer();
    const cancelled = await c.run(placeOrder(other, checkoutInput((await cartWith(c, other, store.id, variant.id, 1)).id)));
    await c.run(cancelOrder(other, cancelled.order.id, { reason: "" }));
    const pending = await pendingPaymentOrder(c, store.id, variant.id, 1);
    await c.later(16 * 60_000, expireOrderReservations(pending.order.id));
    const buyer = customer();
    const taken = await c.run(placeOrder(buyer, checkoutInput((await cartWith(c, buyer, store.id, variant.id, 1)).id)));
    const confirmed: ReadonlyArray<{ event: unknown }> = await db.db.selectFrom("outbox").select("event").where("type", "=", "OrderConfirmed").execute();
    const confirmation = confirmed
      .map((r) => Schema.decodeUnknownSync(EventEnvelope)(typeof r.event === "string" ? JSON.parse(r.event) : r.event))
      .find((e) => e.aggregate_id === taken.order.id)!;
    await c.run(createFulfillmentTask(confirmation));
    const [task] = (await c.run(listFulfillmentTasks(ownerId, store.id, { cursor: null, limit: 50 }))).data;
    await c.run(takeFulfillmentTask(ownerId, task!.id));
    const rows: ReadonlyArray<{ event: unknown }> = await db.db.selectFrom("outbox").select("event").execute();
    // The outbox holds the payment module's events too: the commerce ones are the store's.
    const published = rows
      .map((r) => Schema.decodeUnknownSync(EventEnvelope)(typeof r.event === "string" ? JSON.parse(r.event) : r.event))
      .filter((e) => e.tenant_id === store.id);
    t.same([...new Set(published.map((e) => e.type))].sort(), Object.keys(current).sort(), "every commerce event was published");
    for (const e of published) {
      t.equal(e.schema_version, current[e.type]!.version, `${e.type} is version ${current[e.type]!.version}`);
      t.same(Object.keys(e.data as object).sort(), Object.keys(current[e.type]!.data).sort(), `${e.type} carries the contract's fields`);
      t.equal(Schema.decodeUnknownEither(CommerceEvent)(e)._tag, "Right", `${e.type} decodes through the union`);
    }
  }),
);

t.test("a consumer does not read an envelope of an unknown schema version as version 1: it fails, to be retried or dead-lettered", (t) =>
  forEachCommerceDialect(t, "unknown schema version", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, variant } = await seedStore(c, { stock: 10 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const v2 = Schema.decodeUnknownSync(EventEnvelope)({
      ...envelope("OrderConfirmed", { ...v1.OrderConfirmed, order_id: placed.order.id }, 2),
      tenant_id: store.id,
      aggregate_id: placed.order.id,
    });
    const task = await c.run(Effect.exit(createFulfillmentTask(v2)));
    t.equal(task._tag, "Failure", "the fulfillment consumer refuses version 2");
    t.same((await c.run(listFulfillmentTasks(ownerId, store.id, { cursor: null, limit: 50 }))).data, [], "and creates no task from it");
    const mail = await c.run(Effect.exit(notifyCustomer(v2)));
    t.equal(mail._tag, "Failure", "the mail consumer refuses version 2");
  }),
);
