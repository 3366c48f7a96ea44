/**
 * A refund the payment refuses (spec, E-commerce States: return stages ... refund requested,
 * closed; "nothing is lost on failure"): the return moves to `refund_failed` (its own stage, kept
 * by the database too) with `return.refund_failed` on the timeline and ReturnRefundFailed through
 * the outbox. Support requests the refund again from there: the request sends it under the
 * return's next refund attempt key, so requests made at once (parallel connections on Postgres)
 * refund it at most once.
 */
import { Effect } from "effect";
import t from "tap";
import { makeSandboxProvider } from "../../adapters/payments/providers/sandbox/SandboxProvider.js";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { confirmReturnRefunds } from "../../core/commerce/ReturnRefunds.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../core/commerce/Returns.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import type { TapTest } from "../support/databases.js";
import { cartWith, checkoutInput, commerceRuntime, customer, forEachCommerceDialect, seedStore } from "./support.js";

/** A dispatched order with one quarantined return of one of its two units. */
const quarantinedReturn = async (t: TapTest, db: SqlDatabase) => {
  const c = commerceRuntime(t, db, makeSandboxProvider());
  const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
  const shopper = customer();
  const cart = await cartWith(c, shopper, store.id, variant.id, 2);
  const orderId = (await c.run(placeOrder(shopper, checkoutInput(cart.id)))).order.id;
  const lineId = (await c.run(getOrder(shopper, orderId))).lines[0]!.id;
  await c.run(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `RF-${orderId}` }));
  const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
  const ret = await c.run(createReturn(shopper, { orderId, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
  await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "in" }));
  await c.run(advanceReturn(warehouse, ret.id, { to: "quarantined", reason: "chipped" }));
  const support = { kind: "staff" as const, userId: ownerId, role: "support" as const };
  const findReturn = () => c.run(Effect.flatMap(OrdersRepository, (o) => o.findReturn(ret.id)));
  const timeline = async () => (await c.run(getOrder(shopper, orderId))).timeline.map((e) => e.kind);
  const events = async () => (await db.db.selectFrom("outbox").select("type").execute()).map((e: { type: string }) => e.type);
  return { c, store, orderId, ret, support, findReturn, timeline, events };
};

/** Runs `effect` with a gateway whose refunds the payment refuses (`failed`), each call counted. */
const refusingRefunds = async (c: ReturnType<typeof commerceRuntime>) => {
  const gateway = await c.run(PaymentGateway);
  const keys: string[] = [];
  const refusing = PaymentGateway.of({
    ...gateway,
    refund: (request) =>
      Effect.sync(() => {
        keys.push(request.idempotencyKey);
        return { refundId: `refused-${keys.length}`, paymentId: request.paymentId, amount: request.amount, status: "failed" as const };
      }),
  });
  return { keys, refusing: <A, E, R>(effect: Effect.Effect<A, E, R>) => Effect.provideService(effect, PaymentGateway, refusing) };
};

t.test("a refund the payment refuses moves its return to refund_failed, on the timeline and through the outbox, once", (t) =>
  forEachCommerceDialect(t, "refund_failed stage", async (t, db) => {
    const { c, orderId, ret, support, findReturn, timeline, events } = await quarantinedReturn(t, db);
    const { refusing } = await refusingRefunds(c);
    const answer = await c.run(refusing(requestReturnRefund(support, ret.id, { reason: "customer refund" })));
    t.equal(answer.status, "refund_failed", "the request answers the refused refund's stage");
    t.equal((await findReturn())?.status, "refund_failed");
    t.equal(await c.run(refusing(confirmReturnRefunds(orderId))), 0, "the job finds nothing waiting");
    t.equal((await timeline()).filter((k) => k === "return.refund_failed").length, 1, "on the timeline once");
    t.equal((await events()).filter((e) => e === "ReturnRefundFailed").length, 1, "ReturnRefundFailed once");
  }),
);

t.test("a refund the payment refuses to the confirmation job moves its return to refund_failed", (t) =>
  forEachCommerceDialect(t, "refund_failed by the job", async (t, db) => {
    const { c, orderId, ret, findReturn, events } = await quarantinedReturn(t, db);
    // The request committed and the process stopped before the gateway call: the job sends it.
    await c.run(Effect.flatMap(OrdersRepository, (o) => o.transitionReturn(ret.id, "quarantined", "refund_requested", new Date())));
    const { refusing } = await refusingRefunds(c);
    t.equal(await c.run(refusing(confirmReturnRefunds(orderId))), 0);
    t.equal((await findReturn())?.status, "refund_failed");
    t.equal(await c.run(refusing(confirmReturnRefunds(orderId))), 0, "a second run changes nothing");
    t.equal((await events()).filter((e) => e === "ReturnRefundFailed").length, 1);
  }),
);

t.test("support requests a refused refund again: it is sent once under the return's next attempt key and the return closes", (t) =>
  forEachCommerceDialect(t, "refund requested again", async (t, db) => {
    const { c, store, orderId, ret, support, findReturn, timeline } = await quarantinedReturn(t, db);
    const { keys, refusing } = await refusingRefunds(c);
    await c.run(refusing(requestReturnRefund(support, ret.id, { reason: "customer refund" })));
    const again = await c.run(requestReturnRefund(support, ret.id, { reason: "the bank fixed the card" }));
    t.equal(again.status, "closed", "the second attempt was refunded");
    t.equal((await findReturn())?.refundAttempt, 2);
    t.equal(keys.length, 1, "the refused attempt was sent once");
    t.ok((await timeline()).includes("return.refund_requested"));
    const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(orderId)));
    t.equal(payment?.refundedMinor, ret.refundMinor);
    const paid = await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: payment!.paymentId! })));
    t.equal(paid.refundedMinor, ret.refundMinor, "refunded once at the payment");
    const late = await c.attempt(requestReturnRefund(support, ret.id, { reason: "again" }));
    t.equal(late.ok ? late.value.status : (late.error as { code: string }).code, "return_state_conflict", "a closed return is not refunded again");
  }),
);

t.test("requests again of a refused refund made at once refund it exactly once", (t) =>
  forEachCommerceDialect(t, "refund requested again at once", async (t, db) => {
    const { c, store, orderId, ret, support, findReturn } = await quarantinedReturn(t, db);
    const { refusing } = await refusingRefunds(c);
    await c.run(refusing(requestReturnRefund(support, ret.id, { reason: "customer refund" })));
    const results = await Promise.all(Array.from({ length: 8 }, (_, i) => c.attempt(requestReturnRefund(support, ret.id, { reason: `again ${i}` }))));
    t.ok(results.some((r) => r.ok), "one request wins");
    // The others are told the return moved, or (having read it after the move) answer it as it stands.
    const answers = new Set(results.map((r) => (r.ok ? r.value.status : (r.error as { code: string }).code)));
    t.ok([...answers].every((a) => ["return_state_conflict", "refund_requested", "closed"].includes(a)), `every answer is the return or 409: ${[...answers]}`);
    const after = await findReturn();
    t.same([after?.status, after?.refundAttempt], ["closed", 2], "one more attempt, refunded and closed");
    const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(orderId)));
    t.equal(payment?.refundedMinor, ret.refundMinor, "counted once");
    const paid = await c.run(Effect.flatMap(PaymentGateway, (g) => g.status({ merchantId: store.merchantId, paymentId: payment!.paymentId! })));
    t.equal(paid.refundedMinor, ret.refundMinor, "refunded once at the payment");
  }),
);

t.test("the database keeps the refund_failed stage: only from refund_requested, only back to refund_requested with the next attempt", (t) =>
  forEachCommerceDialect(t, "refund_failed in the database", async (t, db) => {
    const { c, ret, support } = await quarantinedReturn(t, db);
    const row = () => db.db.updateTable("shop_returns").where("id", "=", ret.id);
    const refused = async (what: string, run: () => Promise<unknown>) =>
      t.equal(await run().then(() => "accepted", () => "refused"), "refused", `the database refuses ${what}`);
    await refused("quarantined → refund_failed", () => row().set({ status: "refund_failed" }).execute());
    const { refusing } = await refusingRefunds(c);
    await c.run(refusing(requestReturnRefund(support, ret.id, { reason: "customer refund" })));
    await refused("refund_failed → closed", () => row().set({ status: "closed" }).execute());
    await refused("refund_failed → refund_requested with the same attempt", () => row().set({ status: "refund_requested" }).execute());
    await refused("refund_failed → refund_requested skipping an attempt", () => row().set({ status: "refund_requested", refund_attempt: 3 }).execute());
    await refused("a new attempt without the move", () => row().set({ refund_attempt: 2 }).execute());
    await row().set({ status: "refund_requested", refund_attempt: 2 }).execute();
    t.pass("refund_failed → refund_requested with the next attempt is accepted");
  }),
);

t.test("a refund the payment refuses as more than is left to refund moves its return to refund_failed, by the request and by the job", (t) =>
  forEachCommerceDialect(t, "refund above refundable", async (t, db) => {
    const { c, store, orderId, ret, support, findReturn, events } = await quarantinedReturn(t, db);
    // The merchant refunded the whole capture through the payments API, outside the order's returns.
    const payment = (await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(orderId))))!;
    await c.run(
      Effect.flatMap(PaymentGateway, (g) =>
        g.refund({ merchantId: store.merchantId, paymentId: payment.paymentId!, idempotencyKey: `elsewhere-${orderId}`, amount: { amount_minor: payment.capturedMinor, currency: "EUR" } }),
      ),
    );
    const answer = await c.attempt(requestReturnRefund(support, ret.id, { reason: "customer refund" }));
    t.equal(answer.ok ? answer.value.status : (answer.error as { code: string }).code, "refund_failed", "the request answers the refused refund's stage");
    t.equal((await findReturn())?.status, "refund_failed");
    t.equal((await events()).filter((e) => e === "ReturnRefundFailed").length, 1);
    const again = await c.attempt(requestReturnRefund(support, ret.id, { reason: "again" }));
    t.equal(again.ok ? again.value.status : (again.error as { code: string }).code, "refund_failed", "asked again, refused again");
    // The job meets the same refusal for a request it sends itself.
    await c.run(Effect.flatMap(OrdersRepository, (o) => o.requestReturnRefundAgain(ret.id, 2, new Date())));
    t.equal(await c.run(confirmReturnRefunds(orderId)), 0);
    t.same([(await findReturn())?.status, (await findReturn())?.refundAttempt], ["refund_failed", 3], "the job records it too, instead of retrying for good");
  }),
);
