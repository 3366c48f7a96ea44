/**
 * Spec (commerce Limits): "Rate limits apply by account, IP and checkout risk signals". Declined
 * checkouts count under the client IP and the (normalised) e-mail as well as the account, for
 * guests and customers alike: guest carts from one IP reach 429 checkout_risk at the network's
 * bound (larger than an account's: many clients share a network); a customer over the bound gets
 * 429 with Retry-After and is refused as a guest too with the same e-mail; another IP is not
 * affected (security audit S4). Over HTTP on the reference server, SQLite and Postgres; each
 * client IP is a loopback address of its own.
 */
import t from "tap";
import { defaultCheckoutRiskBounds } from "../../core/commerce/CheckoutRisk.js";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer, type Answer } from "./http-support.js";

type Server = Awaited<ReturnType<typeof startCommerceServer>>;

/** A guest's checkout from `from`: a new cart, one line, POST /v1/orders with its cart token. */
const guestCheckout = async (call: Server["call"], from: string, storeId: string, variantId: string, overrides: Record<string, unknown>): Promise<Answer> => {
  const created = await call("POST", "/v1/carts", { from, body: { store_id: storeId } });
  const cartId = String(created.body.id);
  const token = String(created.body.cart_token);
  await call("POST", `/v1/carts/${cartId}/lines`, { from, token, body: { variant_id: variantId, quantity: 1 } });
  return call("POST", "/v1/orders", { from, token, key: freshKey(), body: checkoutBody(cartId, overrides) });
};

const declined = { payment_method: "pm_card_declined" };
const statusesOf = (answers: ReadonlyArray<Answer>) => answers.map((a) => (a.status === 429 ? `429 ${String(a.body.code)}` : String(a.status)));
const { max } = defaultCheckoutRiskBounds;
const bound = (declines: number, refusals: number) => [...Array<string>(declines).fill("402"), ...Array<string>(refusals).fill("429 checkout_risk")];

t.test("declined guest checkouts count per client IP: guests from one IP reach 429 checkout_risk at the network's bound; another IP is not affected", (t) =>
  forEachDialectConfig(t, "guest checkout risk per IP", async (t, _config, dialect) => {
    const { call, setupStore } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 50 });
    const answers: Answer[] = [];
    // Each guest gives another e-mail: only the address links them.
    const count = max.network + 3;
    for (let i = 0; i < count; i++) answers.push(await guestCheckout(call, "127.0.0.3", storeId, variantId, { ...declined, email: `tester-${i}@example.com` }));
    t.same(statusesOf(answers), bound(max.network, count - max.network), "the network's bound of declines, then 429 checkout_risk");
    const refused = answers[max.network]!;
    const retryAfter = Number(refused.headers.get("retry-after"));
    t.ok(retryAfter > 3500 && retryAfter <= 3600, `Retry-After until the oldest decline leaves the hour (${retryAfter} s)`);
    t.equal(refused.headers.get("content-type")?.startsWith("application/problem+json"), true, "a problem document");

    t.match(await guestCheckout(call, "127.0.0.4", storeId, variantId, { ...declined, email: "someone@example.com" }), { status: 402 }, "another IP's decline is its own");
    t.match(await guestCheckout(call, "127.0.0.4", storeId, variantId, { email: "someone@example.com" }), { status: 201, body: { status: "confirmed" } }, "another IP checks out");
  }),
);

t.test("a customer over the checkout-risk bound is refused as a guest too with the same e-mail; their network is held to its own, larger bound", (t) =>
  forEachDialectConfig(t, "customer declines count under IP and e-mail", async (t, _config, dialect) => {
    const { call, user, setupStore } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 50 });
    const customer = await user();
    const customerCheckout = async (overrides: Record<string, unknown>) => {
      const cart = await call("POST", "/v1/carts", { from: "127.0.0.5", token: customer.token, body: { store_id: storeId } });
      const cartId = String(cart.body.id);
      await call("POST", `/v1/carts/${cartId}/lines`, { from: "127.0.0.5", token: customer.token, body: { variant_id: variantId, quantity: 1 } });
      return call("POST", "/v1/orders", { from: "127.0.0.5", token: customer.token, key: freshKey(), body: checkoutBody(cartId, overrides) });
    };
    const answers: Answer[] = [];
    for (let i = 0; i <= max.account; i++) answers.push(await customerCheckout({ ...declined, email: "Mallory+shop@Example.com" }));
    t.same(statusesOf(answers), bound(max.account, 1), "the customer reaches the bound");
    const ownRetryAfter = Number(answers[max.account]!.headers.get("retry-after"));
    t.ok(ownRetryAfter > 3500 && ownRetryAfter <= 3600, `Retry-After until the customer's oldest decline leaves the hour (${ownRetryAfter} s)`);

    const sameIp = await guestCheckout(call, "127.0.0.5", storeId, variantId, { email: "fresh@example.org" });
    t.match(sameIp, { status: 201 }, "the customer's declines count toward the network's bound, which is not reached");
    const sameEmail = await guestCheckout(call, "127.0.0.6", storeId, variantId, { email: "mallory@example.COM" });
    t.match(sameEmail, { status: 429, body: { code: "checkout_risk" } }, "dropping the token does not help: a guest with the same e-mail (normalised: case and +tag) is refused");
    t.ok(Number(sameEmail.headers.get("retry-after")) > 0, "Retry-After is set");
    const other = await guestCheckout(call, "127.0.0.6", storeId, variantId, { email: "ada@example.net" });
    t.match(other, { status: 201, body: { status: "confirmed" } }, "another IP with another e-mail checks out");
  }),
);

t.test("declined guest checkouts count per e-mail: the same normalised e-mail from five IPs refuses the sixth", (t) =>
  forEachDialectConfig(t, "guest checkout risk per e-mail", async (t, _config, dialect) => {
    const { call, setupStore } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 50 });
    const spellings = ["eve@example.com", "Eve@Example.com", "eve+1@example.com", "EVE+card@EXAMPLE.COM", "eve+x@Example.com"];
    const answers: Answer[] = [];
    for (const [i, email] of spellings.entries()) answers.push(await guestCheckout(call, `127.0.1.${i + 1}`, storeId, variantId, { ...declined, email }));
    answers.push(await guestCheckout(call, "127.0.1.9", storeId, variantId, { email: "eve@example.com" }));
    t.same(statusesOf(answers), bound(max.email, 1), "five declines from five IPs, then 429 checkout_risk for the e-mail");
    t.match(await guestCheckout(call, "127.0.1.9", storeId, variantId, { email: "bob@example.com" }), { status: 201 }, "that IP with another e-mail checks out");
  }),
);

t.test("the client address is no part of a checkout's payload: a retry from another address under the same key replays the order", (t) =>
  forEachDialectConfig(t, "replay from another address", async (t, _config, dialect) => {
    const { call, setupStore } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 5 });
    const created = await call("POST", "/v1/carts", { from: "127.0.2.1", body: { store_id: storeId } });
    const cartId = String(created.body.id);
    const token = String(created.body.cart_token);
    await call("POST", `/v1/carts/${cartId}/lines`, { from: "127.0.2.1", token, body: { variant_id: variantId, quantity: 1 } });
    const key = freshKey();
    const placed = await call("POST", "/v1/orders", { from: "127.0.2.1", token, key, body: checkoutBody(cartId) });
    t.match(placed, { status: 201, body: { status: "confirmed" } });
    const retried = await call("POST", "/v1/orders", { from: "127.0.2.2", token, key, body: checkoutBody(cartId) });
    t.match(retried, { status: 201, body: { id: placed.body.id } }, "the same order, not 422 idempotency_key_reused");
    t.equal(retried.headers.get("idempotent-replayed"), "true");
  }),
);
