/**
 * The order's payment record moves only forward (spec, E-commerce: money kept correct "across
 * retries and partial failures"; "Order state changes use version or conditional status
 * updates"). A writer records an answer only from the status it read, so a late copy of a capture
 * cannot undo a return's refund; and the database refuses any other move of the record.
 */
import { Effect } from "effect";
import t from "tap";
import { captureOrder, dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../core/commerce/Returns.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { forEachCommerceDialect } from "./support.js";
import { commerceRuntime, confirmedOrder, seedStore, type CommerceRuntime } from "./support.js";
import { timelineEntries } from "./timeline.js";

const paymentRecord = async (c: CommerceRuntime, orderId: string) => {
  const orders = await c.run(OrdersRepository);
  const payment = (await c.run(orders.findPayment(orderId)))!;
  const kinds = (await c.run(timelineEntries(orderId))).map((e) => e.kind);
  return { payment, kinds };
};

const refused = async (t: { ok: (v: unknown, m: string) => void }, what: string, run: () => Promise<unknown>) => {
  const outcome = await run().then(
    () => "accepted",
    () => "refused",
  );
  t.ok(outcome === "refused", `the database refuses ${what}`);
};

t.test("a payment record moves only from the status its writer read: a late capture never undoes a return's refund", (t) =>
  forEachCommerceDialect(t, "late capture", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const { shopper, placed } = await confirmedOrder(c, store.id, variant.id, 1);
    const orderId = placed.order.id;
    const orders = await c.run(OrdersRepository);
    // The dispatch's inline capture stops before it records anything: the payment stays authorized.
    await c.run(
      Effect.provideService(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `LC-${orderId}` }), OrdersRepository, {
        ...orders,
        appendTimeline: (entry) => (entry.kind === "payment.captured" ? Effect.die(new Error("timeline unavailable")) : orders.appendTimeline(entry)),
      }),
    );
    t.equal((await paymentRecord(c, orderId)).payment.status, "authorized");

    // One capture (the job) has read the record and waits at the provider ...
    const gateway = await c.run(PaymentGateway);
    let reached!: () => void;
    const atProvider = new Promise<void>((resolve) => (reached = resolve));
    let release!: () => void;
    const released = new Promise<void>((resolve) => (release = resolve));
    const slow = PaymentGateway.of({
      ...gateway,
      capture: (request) =>
        Effect.zipRight(
          Effect.promise(() => {
            reached();
            return released;
          }),
          gateway.capture(request),
        ),
    });
    const late = c.run(Effect.provideService(captureOrder(orderId), PaymentGateway, slow));
    await atProvider;
    // ... while another records the capture, and a return of the unit is refunded.
    await c.run(captureOrder(orderId));
    const lineId = (await c.run(getOrder(shopper, orderId))).lines[0]!.id;
    const ret = await c.run(createReturn(shopper, { orderId, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "in" }));
    await c.run(advanceReturn(warehouse, ret.id, { to: "quarantined", reason: "chipped" }));
    const closed = await c.run(requestReturnRefund({ kind: "staff", userId: ownerId, role: "support" }, ret.id, { reason: "refund" }));
    t.equal(closed.status, "closed");
    t.equal((await paymentRecord(c, orderId)).payment.refundedMinor, ret.refundMinor, "the refund is recorded");

    // The late capture comes back with the provider's (same) answer.
    release();
    await late.catch(() => undefined);
    const after = await paymentRecord(c, orderId);
    t.equal(after.payment.status, "captured");
    t.equal(after.payment.capturedMinor, placed.order.totalMinor);
    t.equal(after.payment.refundedMinor, ret.refundMinor, "the return's refund is still recorded");
    t.equal(after.kinds.filter((k) => k === "payment.captured").length, 1, "the capture is on the timeline once");
  }),
);

t.test("the database keeps the payment record's moves: status along its table, captured and refunded never decrease, what was authorized never changes", (t) =>
  forEachCommerceDialect(t, "payment record moves", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const { placed } = await confirmedOrder(c, store.id, variant.id, 1);
    const orderId = placed.order.id;
    const q = db.db;
    const row = () => q.updateTable("shop_order_payments").where("order_id", "=", orderId);

    await refused(t, "authorized → declined", () => row().set({ status: "declined" }).execute());
    await refused(t, "authorized → unknown", () => row().set({ status: "unknown" }).execute());
    await refused(t, "a change of the amount authorized", () => row().set({ amount_minor: 1 }).execute());
    await refused(t, "a change of the payment id once recorded", () => row().set({ payment_id: "pi_other" }).execute());
    await refused(t, "a change of the merchant", () => row().set({ merchant_id: "m_other" }).execute());
    await refused(t, "a change of the idempotency key", () => row().set({ idempotency_key: "other" }).execute());
    await refused(t, "a change of the payment method", () => row().set({ payment_method: "pm_other" }).execute());
    await refused(t, "a DELETE", () => q.deleteFrom("shop_order_payments").where("order_id", "=", orderId).execute());

    await c.run(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `PR-${orderId}` }));
    const captured = (await paymentRecord(c, orderId)).payment;
    t.equal(captured.status, "captured");
    await refused(t, "captured → authorized", () => row().set({ status: "authorized" }).execute());
    await refused(t, "captured → voided", () => row().set({ status: "voided" }).execute());
    await refused(t, "captured_minor decreasing", () => row().set({ captured_minor: 0 }).execute());
    await c.run(Effect.flatMap(OrdersRepository, (o) => o.addRefundedMinor(orderId, 100, new Date())));
    await refused(t, "refunded_minor decreasing", () => row().set({ refunded_minor: 0 }).execute());
    const kept = (await paymentRecord(c, orderId)).payment;
    t.same([kept.status, kept.capturedMinor, kept.refundedMinor, kept.amountMinor], ["captured", captured.capturedMinor, 100, captured.amountMinor], "nothing of it moved back");
  }),
);
