/**
 * Checkout risk bounds checkouts in flight too (spec, commerce Limits: "Rate limits apply by
 * account, IP and checkout risk signals"; docs/known-gaps.md, E-commerce). Under a lock per
 * signal, a checkout counts the signal's declines within the hour plus its checkouts whose payment
 * is still unresolved: twenty checkouts sent at once under one signal attempt at most five
 * authorizations. Postgres runs them on real parallel connections; SQLite serializes writers and
 * must agree.
 */
import { Effect } from "effect";
import t from "tap";
import { randomUUID } from "node:crypto";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { CheckoutRiskTooHigh, checkoutRisk } from "../../core/commerce/CheckoutRisk.js";
import { resolveOrderPayment } from "../../core/commerce/OrderPayments.js";
import { placeOrder, type PlaceOrderInput } from "../../core/commerce/PlaceOrder.js";
import type { Shopper } from "../../core/commerce/Access.js";
import type { OrderId, StoreId, VariantId } from "../../core/commerce/model/Ids.js";
import { reconcileIntent } from "../../core/payments/ReconcileIntent.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { forEachCommerceDialect } from "./support.js";
import { checkoutInput, commerceRuntime, customer, seedStore, type CommerceRuntime } from "./support.js";

/** A cart of one unit for `shopper`, or for a new guest; the shopper who owns it. */
const cartOf = async (c: CommerceRuntime, storeId: StoreId, variantId: VariantId, shopper: Shopper | null) => {
  const created = await c.run(createCart(shopper?.kind === "customer" ? shopper.userId : null, storeId));
  const owner: Shopper = shopper ?? { kind: "guest", cartToken: created.cartToken! };
  await c.run(setCartLine(owner, created.cart.id, { variantId, quantity: 1 }));
  return { owner, cartId: created.cart.id };
};

const codeOf = (r: { ok: boolean; error?: unknown }) => (r.ok ? "ok" : String((r.error as { code: string }).code));

/** Each case: twenty checkouts that share one signal and differ in the others. */
const oneSignal: ReadonlyArray<{ readonly signal: string; readonly shopper: () => Shopper | null; readonly input: (i: number) => Partial<PlaceOrderInput> }> = (() => {
  const account = customer();
  return [
    { signal: "one network", shopper: () => null, input: (i) => ({ clientIp: "203.0.113.7", email: `tester-${i}@example.com` }) },
    { signal: "one e-mail", shopper: () => null, input: (i) => ({ clientIp: `198.51.100.${i + 1}`, email: "card.tester@example.com" }) },
    { signal: "one account", shopper: () => account, input: (i) => ({ clientIp: `192.0.2.${i + 1}`, email: `account-${i}@example.com` }) },
  ];
})();

for (const { signal, shopper, input } of oneSignal) {
  t.test(`checkouts in flight count against the bound: twenty parallel checkouts with a declined card from ${signal} attempt at most five authorizations`, (t) =>
    forEachCommerceDialect(t, `in flight, ${signal}`, async (t, db) => {
      const c = commerceRuntime(t, db);
      const { store, variant } = await seedStore(c, { stock: 50 });
      const carts = await Promise.all(Array.from({ length: 20 }, () => cartOf(c, store.id, variant.id, shopper())));
      const results = await Promise.all(
        carts.map(({ owner, cartId }, i) => c.attempt(placeOrder(owner, checkoutInput(cartId, { paymentMethod: "pm_card_declined", ...input(i) })))),
      );
      const codes = results.map(codeOf);
      t.equal(c.provider.calls.filter((call) => call.operation === "authorize").length, checkoutRisk.max, "five authorizations attempted");
      t.equal(codes.filter((code) => code === "payment_declined").length, checkoutRisk.max, "five declined");
      t.equal(codes.filter((code) => code === "checkout_risk").length, 20 - checkoutRisk.max, "the rest refused with 429 checkout_risk");
    }),
  );
}

t.test("checkouts whose payment is unresolved fill the bound: the next is refused with a short Retry-After, and passes once they resolve", (t) =>
  forEachCommerceDialect(t, "unresolved fill the bound", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 50 });
    const network = { clientIp: "203.0.113.9" };
    const pending: OrderId[] = [];
    for (let i = 0; i < checkoutRisk.max; i++) {
      const { owner, cartId } = await cartOf(c, store.id, variant.id, null);
      // A lost provider answer leaves the payment unresolved (payment_pending) until the resolution job.
      const placed = await c.run(placeOrder(owner, checkoutInput(cartId, { ...network, email: `${randomUUID()}@example.com`, paymentMethod: "pm_card_timeout_after" })));
      t.equal(placed.order.status, "payment_pending");
      pending.push(placed.order.id);
    }
    const next = await cartOf(c, store.id, variant.id, null);
    const refused = await c.attempt(placeOrder(next.owner, checkoutInput(next.cartId, { ...network, email: "late@example.com" })));
    t.match(refused, { ok: false, error: { code: "checkout_risk", category: "rate_limited" } }, "429 checkout_risk");
    const retryAfter = !refused.ok && refused.error instanceof CheckoutRiskTooHigh ? refused.error.retryAfterSeconds : 0;
    t.ok(retryAfter >= 1 && retryAfter <= 60, `a short Retry-After while only unresolved checkouts fill the bound (${retryAfter} s)`);
    t.equal(c.provider.calls.filter((call) => call.operation === "authorize").length, checkoutRisk.max, "no authorization for the refused one");

    for (const orderId of pending) {
      const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(orderId)));
      await c.payments.run(reconcileIntent(payment!.paymentId!));
      t.equal((await c.run(resolveOrderPayment(orderId)))?.status, "confirmed", "resolved: authorized");
    }
    const passed = await c.attempt(placeOrder(next.owner, checkoutInput(next.cartId, { ...network, email: "late@example.com" })));
    t.match(passed, { ok: true, value: { order: { status: "confirmed" } } }, "checks out once they resolved (authorized: no decline counts)");
  }),
);
