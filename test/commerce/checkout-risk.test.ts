/**
 * Rate limit by checkout risk (issue rule 8): after five declined payments within an hour a
 * customer's next checkout is refused with 429 checkout_risk and a Retry-After until the oldest
 * decline leaves the hour; other customers are not affected (unless they give the declined
 * e-mail, a risk signal too); an hour later checkout works again. A network many clients share
 * has a larger bound of its own (known gap closed, twenty-first session): its customers are
 * refused at the network's bound, not at one account's.
 */
import { Duration } from "effect";
import t from "tap";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { CheckoutRiskTooHigh, defaultCheckoutRiskBounds } from "../../core/commerce/CheckoutRisk.js";
import { forEachCommerceDialect } from "./support.js";
import { cartWith, checkoutInput, commerceRuntime, customer, seedStore } from "./support.js";

t.test("five declines within the hour refuse the customer's next checkout with 429 checkout_risk until the hour has passed", (t) =>
  forEachCommerceDialect(t, "checkout risk", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { store, variant } = await seedStore(c, { stock: 20 });
    const shopper = customer();
    for (let i = 0; i < defaultCheckoutRiskBounds.max.account; i++) {
      const cart = await cartWith(c, shopper, store.id, variant.id, 1);
      const declined = await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod: "pm_card_declined" })));
      t.match(declined, { ok: false, error: { code: "payment_declined" } });
    }
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    const refused = await c.attempt(placeOrder(shopper, checkoutInput(cart.id)));
    t.match(refused, { ok: false, error: { code: "checkout_risk", category: "rate_limited" } });
    const retryAfter = !refused.ok && refused.error instanceof CheckoutRiskTooHigh ? refused.error.retryAfterSeconds : 0;
    t.ok(retryAfter > 3500 && retryAfter <= 3600, `Retry-After until the oldest decline leaves the hour (${retryAfter} s)`);

    const other = customer();
    const otherCart = await cartWith(c, other, store.id, variant.id, 1);
    // With its own e-mail: the declined e-mail is a risk signal of its own (http-checkout-risk-signals.test.ts).
    t.match(await c.run(placeOrder(other, checkoutInput(otherCart.id, { email: "grace@example.com" }))), { order: { status: "confirmed" } }, "another customer checks out");
    t.match(await c.attempt(placeOrder(other, checkoutInput((await cartWith(c, other, store.id, variant.id, 1)).id))), { ok: false, error: { code: "checkout_risk" } }, "not with the declined e-mail");
    const later = await c.later(61 * 60_000, placeOrder(shopper, checkoutInput(cart.id)));
    t.equal(later.order.status, "confirmed", "an hour later the customer checks out again");
  }),
);

t.test("customers of different accounts on one network are refused at the network's bound, not at the account's; one account is still refused at its own", (t) =>
  forEachCommerceDialect(t, "network bound", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { account, network } = defaultCheckoutRiskBounds.max;
    t.ok(network > account, "a network's bound is larger than an account's");
    const { store, variant } = await seedStore(c, { stock: network + 5 });
    const shared = "203.0.113.50";
    const checkout = async (shopper: ReturnType<typeof customer>, paymentMethod: string, clientIp = shared) => {
      const cart = await cartWith(c, shopper, store.id, variant.id, 1);
      const email = `${shopper.userId}@example.com`;
      const result = await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod, clientIp, email })));
      return result.ok ? "ok" : String((result.error as { code: string }).code);
    };
    const first = customer();
    const own: string[] = [];
    for (let i = 0; i < account; i++) own.push(await checkout(first, "pm_card_declined"));
    own.push(await checkout(first, "pm_card_visa"));
    t.same(own, [...Array<string>(account).fill("payment_declined"), "checkout_risk"], "the account is refused at its own bound");

    const others: string[] = [];
    for (let i = account; i < network; i++) others.push(await checkout(customer(), "pm_card_declined"));
    t.same(others, Array<string>(network - account).fill("payment_declined"), "other accounts there are not refused at the account's bound");
    t.equal(await checkout(customer(), "pm_card_visa"), "checkout_risk", "at the network's bound the next customer there is refused");
    t.equal(await checkout(customer(), "pm_card_visa", "198.51.100.50"), "ok", "a customer on another network checks out");
  }),
);

t.test("a host's checkoutRiskBounds (the commerce module option) set the bounds checkout applies", (t) =>
  forEachCommerceDialect(t, "checkout risk bounds option", async (t, db) => {
    const bounds = { window: Duration.hours(1), max: { account: 2, email: 5, network: 20 } };
    const c = commerceRuntime(t, db, undefined, undefined, { checkoutRiskBounds: bounds });
    const { store, variant } = await seedStore(c, { stock: 20 });
    const shopper = customer();
    for (let i = 0; i < 2; i++) {
      const cart = await cartWith(c, shopper, store.id, variant.id, 1);
      t.match(await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { paymentMethod: "pm_card_declined", email: `try${i}@example.com` }))), { ok: false, error: { code: "payment_declined" } });
    }
    const cart = await cartWith(c, shopper, store.id, variant.id, 1);
    t.match(await c.attempt(placeOrder(shopper, checkoutInput(cart.id, { email: "fresh@example.com" }))), { ok: false, error: { code: "checkout_risk" } }, "refused at the host's account bound of 2, not the default 5");
  }),
);
