/**
 * Checkout risk bounds checkouts in flight too (spec, commerce Limits: "Rate limits apply by
 * account, IP and checkout risk signals"; docs/known-gaps.md, E-commerce). Under a lock per
 * signal, a checkout counts the signal's declines within the hour plus its checkouts whose payment
 * is still unresolved: checkouts sent at once under one signal attempt at most that signal's
 * bound of authorizations (five for an account or an e-mail; a network's as the host sets it). Postgres runs them on real parallel connections; SQLite serializes writers and
 * must agree.
 */
import { Effect } from "effect";
import t from "tap";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { CheckoutRiskLimits, CheckoutRiskTooHigh, defaultCheckoutRiskBounds, type CheckoutRiskBounds } from "../../core/commerce/CheckoutRisk.js";
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

const { max } = defaultCheckoutRiskBounds;

/**
 * A host's own bounds (CheckoutRiskLimits): a network bound of 8, so that twenty checkouts race
 * past it without twenty serial authorizations (the default network bound is in checkout-risk.test.ts).
 */
const hostBounds = { ...defaultCheckoutRiskBounds, max: { ...max, network: 8 } };

/** Each case: twenty checkouts that share one signal (of bound `bounds`) and differ in the others. */
const oneSignal: ReadonlyArray<{
  readonly signal: string;
  readonly bounds: CheckoutRiskBounds;
  readonly max: number;
  readonly shopper: () => Shopper | null;
  readonly input: (i: number) => Partial<PlaceOrderInput>;
}> = (() => {
  const account = customer();
  return [
    { signal: "one network (a host's bound)", bounds: hostBounds, max: hostBounds.max.network, shopper: () => null, input: (i) => ({ clientIp: "203.0.113.7", email: `tester-${i}@example.com` }) },
    { signal: "one e-mail", bounds: defaultCheckoutRiskBounds, max: max.email, shopper: () => null, input: (i) => ({ clientIp: `198.51.100.${i + 1}`, email: "card.tester@example.com" }) },
    { signal: "one account", bounds: defaultCheckoutRiskBounds, max: max.account, shopper: () => account, input: (i) => ({ clientIp: `192.0.2.${i + 1}`, email: `account-${i}@example.com` }) },
  ];
})();

for (const { signal, bounds, max, shopper, input } of oneSignal) {
  const count = 20;
  t.test(`checkouts in flight count against the bound: ${count} parallel checkouts with a declined card from ${signal} attempt at most its bound (${max}) of authorizations`, (t) =>
    forEachCommerceDialect(t, `in flight, ${signal}`, async (t, db) => {
      const c = commerceRuntime(t, db);
      const { store, variant } = await seedStore(c, { stock: count + 30 });
      const carts = await Promise.all(Array.from({ length: count }, () => cartOf(c, store.id, variant.id, shopper())));
      const results = await Promise.all(
        carts.map(({ owner, cartId }, i) => c.attempt(
            placeOrder(owner, checkoutInput(cartId, { paymentMethod: "pm_card_declined", ...input(i) })).pipe(Effect.provideService(CheckoutRiskLimits, bounds)),
          ),
        ),
      );
      const codes = results.map(codeOf);
      t.equal(c.provider.calls.filter((call) => call.operation === "authorize").length, max, "the bound's authorizations attempted");
      t.equal(codes.filter((code) => code === "payment_declined").length, max, "as many declined");
      t.equal(codes.filter((code) => code === "checkout_risk").length, count - max, "the rest refused with 429 checkout_risk");
    }),
  );
}

t.test("checkouts whose payment is unresolved fill the bound: the next is refused with a short Retry-After, and passes once they resolve", (t) =>
  forEachCommerceDialect(t, "unresolved fill the bound", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 50 });
    // One e-mail from many networks: its bound is the account's, the smallest.
    const email = { email: "awaiting@example.com" };
    const pending: OrderId[] = [];
    for (let i = 0; i < max.email; i++) {
      const { owner, cartId } = await cartOf(c, store.id, variant.id, null);
      // A lost provider answer leaves the payment unresolved (payment_pending) until the resolution job.
      const placed = await c.run(placeOrder(owner, checkoutInput(cartId, { ...email, clientIp: `203.0.113.${i + 1}`, paymentMethod: "pm_card_timeout_after" })));
      t.equal(placed.order.status, "payment_pending");
      pending.push(placed.order.id);
    }
    const next = await cartOf(c, store.id, variant.id, null);
    const refused = await c.attempt(placeOrder(next.owner, checkoutInput(next.cartId, { ...email, clientIp: "203.0.113.99" })));
    t.match(refused, { ok: false, error: { code: "checkout_risk", category: "rate_limited" } }, "429 checkout_risk");
    const retryAfter = !refused.ok && refused.error instanceof CheckoutRiskTooHigh ? refused.error.retryAfterSeconds : 0;
    t.ok(retryAfter >= 1 && retryAfter <= 60, `a short Retry-After while only unresolved checkouts fill the bound (${retryAfter} s)`);
    t.equal(c.provider.calls.filter((call) => call.operation === "authorize").length, max.email, "no authorization for the refused one");

    for (const orderId of pending) {
      const payment = await c.run(Effect.flatMap(OrdersRepository, (o) => o.findPayment(orderId)));
      await c.payments.run(reconcileIntent(payment!.paymentId!));
      t.equal((await c.run(resolveOrderPayment(orderId)))?.status, "confirmed", "resolved: authorized");
    }
    const passed = await c.attempt(placeOrder(next.owner, checkoutInput(next.cartId, { ...email, clientIp: "203.0.113.99" })));
    t.match(passed, { ok: true, value: { order: { status: "confirmed" } } }, "checks out once they resolved (authorized: no decline counts)");
  }),
);
