/**
 * Over HTTP on the reference server (SQLite and Postgres): guests check out with a cart token
 * (shown once, presented as the bearer; another token or another customer gets 404, a forged
 * one 401); ten parallel identical checkouts make one order and one authorization; twenty
 * parallel checkouts for the last five units make exactly five orders (the rest 409
 * insufficient_stock with no order written, reserved never above on hand; the only test of this
 * race, on real parallel Postgres connections).
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

t.test("a guest checks out with its cart token; another token or customer gets 404, a forged one 401", (t) =>
  forEachDialectConfig(t, "guest checkout", async (t, _config, dialect) => {
    const { call, user, setupStore, logText } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 5 });
    const created = await call("POST", "/v1/carts", { body: { store_id: storeId } });
    t.match(created, { status: 201, body: { customer_id: null, cart_token: /^ct_/ } });
    t.equal(created.headers.get("cache-control"), "no-store");
    const cartId = String(created.body.id);
    const token = String(created.body.cart_token);
    t.match(await call("POST", `/v1/carts/${cartId}/lines`, { token, body: { variant_id: variantId, quantity: 2 } }), { status: 200, body: { total_minor: 2200 } });
    t.match(await call("GET", `/v1/carts/${cartId}`, { token }), { status: 200, body: { cart_token: null } }, "the token is shown once");
    const otherGuest = String((await call("POST", "/v1/carts", { body: { store_id: storeId } })).body.cart_token);
    t.match(await call("GET", `/v1/carts/${cartId}`, { token: otherGuest }), { status: 404 }, "another guest's token reaches nothing");
    t.match(await call("GET", `/v1/carts/${cartId}`, { token: `ct_${"A".repeat(43)}` }), { status: 401, body: { code: "invalid_token" } });
    const customer = await user();
    t.match(await call("GET", `/v1/carts/${cartId}`, { token: customer.token }), { status: 404 }, "a guest cart is no customer's");

    const key = freshKey();
    const placed = await call("POST", "/v1/orders", { token, key, body: checkoutBody(cartId) });
    t.match(placed, { status: 201, body: { status: "confirmed", customer_id: null } });
    const replay = await call("POST", "/v1/orders", { token, key, body: checkoutBody(cartId) });
    t.equal(replay.headers.get("idempotent-replayed"), "true", "the guest's key is scoped to its cart");
    const orderId = String(placed.body.id);
    t.match(await call("GET", `/v1/orders/${orderId}`, { token }), { status: 200, body: { id: orderId, email: "ada@example.com" } });
    t.match(await call("GET", `/v1/orders/${orderId}`, { token: otherGuest }), { status: 404 });
    t.match(await call("GET", `/v1/orders/${orderId}`, { token: customer.token }), { status: 404 });
    t.match(await call("POST", "/v1/stores", { token, body: { name: "Mine", currency: "EUR" } }), { status: 403 }, "a guest is no user");
    // Conventions, Authentication: tokens, share tokens and payment tokens never appear in logs.
    const log = logText();
    t.ok(log.includes(cartId), "the log holds the requests (ids are fine)");
    for (const secret of [token, otherGuest, token.slice(3), "pm_card_visa", customer.token]) t.notOk(log.includes(secret), `the log never holds ${secret.slice(0, 6)}…`);
  }),
);

t.test("ten parallel identical checkouts make one order and one authorization", (t) =>
  forEachDialectConfig(t, "parallel identical checkouts", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith, provider } = await startCommerceServer(t, dialect, { latencyMs: 50 });
    const { storeId, variantId } = await setupStore({ stock: 5 });
    const customer = await user();
    const cartId = await cartWith(customer, storeId, variantId, 1);
    const key = freshKey();
    const answers = await Promise.all(Array.from({ length: 10 }, () => call("POST", "/v1/orders", { token: customer.token, key, body: checkoutBody(cartId) })));
    for (const answer of answers) {
      t.ok(
        answer.status === 201 || (answer.status === 409 && answer.body.code === "idempotency_request_in_progress"),
        `each answer is the order or in progress (${answer.status} ${String(answer.body.code ?? "")})`,
      );
    }
    const ids = new Set(answers.filter((a) => a.status === 201).map((a) => String(a.body.id)));
    t.equal(ids.size, 1, "one order");
    t.equal(provider.calls.filter((c) => c.operation === "authorize").length, 1, "one authorization");
    t.equal(((await call("GET", "/v1/orders", { token: customer.token })).body.data as unknown[]).length, 1);
  }),
);

t.test("twenty parallel checkouts for the last five units make exactly five orders; the rest 409", (t) =>
  forEachDialectConfig(t, "no oversell", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith } = await startCommerceServer(t, dialect);
    const { owner, storeId, variantId } = await setupStore({ stock: 5 });
    const customers = await Promise.all(Array.from({ length: 20 }, () => user()));
    const carts = [];
    for (const customer of customers) carts.push({ customer, cartId: await cartWith(customer, storeId, variantId, 1) });
    // Twenty customers, each from its own address with its own e-mail (checkout risk bounds the
    // checkouts in flight of one network or one e-mail).
    const answers = await Promise.all(
      carts.map(({ customer, cartId }, i) =>
        call("POST", "/v1/orders", { from: `127.0.0.${20 + i}`, token: customer.token, key: freshKey(), body: checkoutBody(cartId, { email: `customer-${i}@example.com` }) }),
      ),
    );
    t.equal(answers.filter((a) => a.status === 201).length, 5, "five orders reserve");
    t.equal(answers.filter((a) => a.status === 409 && a.body.code === "insufficient_stock").length, 15, "the rest lose with 409 insufficient_stock");
    const stock = ((await call("GET", `/v1/variants/${variantId}/stock`, { token: owner.token })).body.data as Array<Record<string, number>>)[0]!;
    t.match(stock, { on_hand: 5, reserved: 5, available: 0 }, "reserved never above on hand");
    const orders = await Promise.all(carts.map(({ customer }) => call("GET", "/v1/orders", { token: customer.token })));
    t.same(
      orders.map((list) => (list.body.data as unknown[]).length),
      answers.map((a) => (a.status === 201 ? 1 : 0)),
      "each winner has its order; the losers wrote none",
    );
  }),
);
