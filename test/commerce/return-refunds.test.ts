/**
 * A return's refund (spec: a return is closed when the refund is confirmed). The transaction that
 * moves a return to refund_requested schedules the confirmation job; the job sends a refund that
 * never left (once per return key), closes the order's waiting returns when the payment's completed
 * refunds cover every refund requested, and otherwise fails for the runner to retry, leaving them
 * waiting — never closed on a guess. A refund the payment answers `failed` moves its return to
 * refund_failed, goes on the timeline and is no longer waited for (return-refund-failed.test.ts).
 */
import { Effect } from "effect";
import t from "tap";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { captureOrder, dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { confirmReturnRefunds, returnRefundJob, returnRefundJobKey } from "../../core/commerce/ReturnRefunds.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../core/commerce/Returns.js";
import { resolveRefund } from "../../core/payments/ResolveRefund.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { SandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore } from "./support.js";

/** A dispatched order with one quarantined return of one of its two units. */
const returnedUnit = async (t: Parameters<typeof commerceRuntime>[0], db: SqlDatabase, provider: SandboxProvider = makeSandboxProvider()) => {
  const c = commerceRuntime(t, db, provider);
  const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
  const shopper = customer();
  const cart = await cartWith(c, shopper, store.id, variant.id, 2);
  const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
  const orderId = placed.order.id;
  const lineId = (await c.run(getOrder(shopper, orderId))).lines[0]!.id;
  await c.run(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: "T1" }));
  const staff = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
  const ret = await c.run(createReturn(shopper, { orderId, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
  await c.run(advanceReturn(staff, ret.id, { to: "received", reason: "in" }));
  await c.run(advanceReturn(staff, ret.id, { to: "quarantined", reason: "chipped" }));
  const timeline = async () => (await c.run(getOrder(shopper, orderId))).timeline.map((e) => e.kind);
  const returnStatus = async () => (await c.run(Effect.flatMap(OrdersRepository, (o) => o.findReturn(ret.id))))?.status;
  return { c, ownerId, orderId, ret, provider, timeline, returnStatus };
};

t.test("a return whose refund request committed but never reached the payment is refunded by its job, once, and closes", (t) =>
  forEachCommerceDialect(t, "refund never sent", async (t, db) => {
    const { c, orderId, ret, provider, timeline, returnStatus } = await returnedUnit(t, db);
    // The request committed and the process stopped before the gateway call.
    await c.run(Effect.flatMap(OrdersRepository, (o) => o.transitionReturn(ret.id, "quarantined", "refund_requested", new Date())));
    t.equal(provider.payments()[0]?.refundedMinor, 0);
    t.equal(await c.run(confirmReturnRefunds(orderId)), 1, "the job sent the refund and the payment confirmed it");
    t.equal(await returnStatus(), "closed");
    t.equal(provider.payments()[0]?.refundedMinor, ret.refundMinor, "refunded once");
    t.equal(await c.run(confirmReturnRefunds(orderId)), 0, "and only once");
    t.equal(provider.payments()[0]?.refundedMinor, ret.refundMinor, "nothing sent again");
    t.equal((await timeline()).filter((k) => k === "return.closed").length, 1);
  }),
);

t.test("a refund pending at the provider keeps its return waiting until the payment confirms it", (t) =>
  forEachCommerceDialect(t, "refund pending", async (t, db) => {
    const { c, ownerId, orderId, ret, provider, returnStatus } = await returnedUnit(t, db);
    provider.injectFault("refund", "timeout_after");
    const waiting = await c.run(requestReturnRefund({ kind: "staff", userId: ownerId, role: "support" }, ret.id, { reason: "customer refund" }));
    t.equal(waiting.status, "refund_requested", "the answer was lost: waiting");
    const early = await c.attempt(confirmReturnRefunds(orderId));
    t.match(early, { ok: false, error: { _tag: "RefundNotConfirmedYet" } }, "not confirmed: the job fails and is retried");
    t.equal(await returnStatus(), "refund_requested", "still waiting");
    const pending = await db.db.selectFrom("payment_refunds").select("id").where("status", "=", "pending").execute();
    t.equal(pending.length, 1);
    await c.payments.run(resolveRefund(pending[0]!.id));
    t.equal(await c.run(confirmReturnRefunds(orderId)), 1, "the payment confirmed it: the return closes");
    t.equal(await returnStatus(), "closed");
    t.equal(provider.payments()[0]?.refundedMinor, ret.refundMinor, "refunded once");
  }),
);

t.test("requesting a return's refund schedules its confirmation job in the same transaction", (t) =>
  forEachCommerceDialect(t, "job with the request", async (t, db) => {
    const { c, ownerId, ret, returnStatus } = await returnedUnit(t, db);
    await c.run(requestReturnRefund({ kind: "staff", userId: ownerId, role: "support" }, ret.id, { reason: "customer refund" }));
    t.equal(await returnStatus(), "closed", "answered at once");
    const jobs = await db.db.selectFrom("jobs").select(["key", "status"]).where("kind", "=", returnRefundJob.kind).execute();
    t.same(jobs, [{ key: returnRefundJobKey(ret.id), status: "pending" }], "scheduled whatever the answer (it finds nothing left to do)");
  }),
);

t.test("a refund the payment answers failed moves its return to refund_failed, is put on the timeline and no longer waited for", (t) =>
  forEachCommerceDialect(t, "refund failed", async (t, db) => {
    const { c, ownerId, orderId, ret, provider, timeline, returnStatus } = await returnedUnit(t, db);
    // The provider refuses: everything was refunded there already, outside this order's returns.
    const paid = provider.payments()[0]!;
    await Effect.runPromise(provider.refund({ reference: "elsewhere", providerPaymentId: paid.providerPaymentId!, amount: { amount_minor: paid.capturedMinor, currency: paid.amount.currency } }));
    const answer = await c.run(requestReturnRefund({ kind: "staff", userId: ownerId, role: "support" }, ret.id, { reason: "customer refund" }));
    t.equal(answer.status, "refund_failed");
    t.equal(await c.run(confirmReturnRefunds(orderId)), 0, "nothing to close");
    t.equal(await returnStatus(), "refund_failed", "not closed on a failed refund: its own stage");
    t.ok((await timeline()).includes("return.refund_failed"), "support sees it on the timeline");
    t.equal(await c.run(confirmReturnRefunds(orderId)), 0);
    t.equal((await timeline()).filter((k) => k === "return.refund_failed").length, 1, "recorded once, however often the job runs");
  }),
);

/**
 * Spec (E-commerce States: "return | refund webhook confirmation | closed"; "nothing is lost on
 * failure"). A return's refund requested while the order's capture is not recorded yet (the
 * dispatch's capture failed and waits for its job) is accepted and waits: the return stays
 * refund_requested (no refund is sent against an uncaptured payment, no error answers an
 * accepted request), and its job sends the refund once the capture is recorded, then closes it.
 */
t.test("a return refund requested before the order's capture is recorded waits for the capture, then is sent once and closes", (t) =>
  forEachCommerceDialect(t, "refund before capture", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const shopper = customer();
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const placed = await c.run(placeOrder(shopper, checkoutInput(cart.id)));
    const orderId = placed.order.id;
    const orders = await c.run(OrdersRepository);
    await c.run(
      Effect.provideService(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `RBC-${orderId}` }), OrdersRepository, {
        ...orders,
        appendTimeline: (entry) => (entry.kind === "payment.captured" ? Effect.die(new Error("timeline unavailable")) : orders.appendTimeline(entry)),
      }),
    );
    t.equal((await c.run(orders.findPayment(orderId)))?.status, "authorized", "the capture is not recorded yet");
    const lineId = (await c.run(getOrder(shopper, orderId))).lines[0]!.id;
    const staff = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    const ret = await c.run(createReturn(shopper, { orderId, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
    await c.run(advanceReturn(staff, ret.id, { to: "received", reason: "in" }));
    await c.run(advanceReturn(staff, ret.id, { to: "quarantined", reason: "chipped" }));
    const requested = await c.attempt(requestReturnRefund({ kind: "staff", userId: ownerId, role: "support" }, ret.id, { reason: "refund" }));
    t.equal(requested.ok ? requested.value.status : (requested.error as { code: string }).code, "refund_requested", "accepted: the return waits for the capture");

    await c.run(captureOrder(orderId));
    t.equal(await c.run(confirmReturnRefunds(orderId)), 1, "the job sends the refund and closes the return");
    const payment = await c.run(orders.findPayment(orderId));
    t.same([payment?.status, payment?.refundedMinor], ["captured", ret.refundMinor]);
    const paid = await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: payment!.paymentId! })));
    t.equal(paid.refundedMinor, ret.refundMinor, "refunded once at the payment");
  }),
);
