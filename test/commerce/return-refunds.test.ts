/**
 * A return whose refund is still pending at the payment closes only once the payment confirms
 * it (spec: a return is closed when the refund is confirmed): the confirmation job closes the
 * order's waiting returns when the payment's completed refunds cover every refund requested,
 * and otherwise fails for the runner to retry, leaving them waiting — never closed on a guess.
 */
import { Effect } from "effect";
import t from "tap";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { confirmReturnRefunds } from "../../core/commerce/ReturnRefunds.js";
import { advanceReturn, createReturn } from "../../core/commerce/Returns.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore } from "./support.js";

t.test("a pending return refund closes when the payment's completed refunds cover it, and not before", (t) =>
  forEachCommerceDialect(t, "return refund confirmation", async (t, db) => {
    const c = commerceRuntime(t, db);
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
    // The refund was requested and the provider has not answered yet (its outcome is pending).
    await c.run(Effect.flatMap(OrdersRepository, (o) => o.transitionReturn(ret.id, "quarantined", "refund_requested", new Date())));

    const early = await c.attempt(confirmReturnRefunds(orderId));
    t.match(early, { ok: false, error: { _tag: "RefundNotConfirmedYet" } }, "not confirmed: the job fails and is retried");
    t.equal((await c.run(Effect.flatMap(OrdersRepository, (o) => o.findReturn(ret.id))))?.status, "refund_requested", "still waiting");

    const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(orderId)));
    await c.run(
      Effect.flatMap(PaymentGateway, (g) =>
        g.refund({ merchantId: payment!.merchantId, paymentId: payment!.paymentId!, idempotencyKey: `return:${ret.id}/refund`, amount: { amount_minor: ret.refundMinor, currency: "EUR" } }),
      ),
    );
    t.equal(await c.run(confirmReturnRefunds(orderId)), 1, "the payment confirmed it: the return closes");
    t.equal((await c.run(Effect.flatMap(OrdersRepository, (o) => o.findReturn(ret.id))))?.status, "closed");
    t.equal(await c.run(confirmReturnRefunds(orderId)), 0, "and only once");
    const timeline = (await c.run(getOrder(shopper, orderId))).timeline.map((e) => e.kind);
    t.equal(timeline.filter((k) => k === "return.closed").length, 1);
  }),
);
