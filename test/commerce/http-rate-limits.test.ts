/**
 * Issue rule 8: rate limits by account and by IP answer 429 with Retry-After on the shop's routes
 * (the host's limiter: a signed-in customer and a guest cart are counted by their principal,
 * anonymous catalog browsing by client IP), each budget apart from the others. The third limit,
 * by checkout risk (repeated declines), is tested in http-errors.test.ts and checkout-risk.test.ts.
 * SQLite and Postgres.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { startCommerceServer } from "./http-support.js";

const budget = 6;

t.test("rate limits by account and by IP answer 429 with Retry-After", (t) =>
  forEachDialectConfig(t, "commerce rate limits", async (t, _config, dialect) => {
    const { call, user, setupStore } = await startCommerceServer(t, dialect, {}, {}, { limits: { rateLimitPoints: budget, rateLimitWindowSeconds: 60 } });
    const { storeId } = await setupStore({ stock: 5 }); // four of the owner's points

    const customer = await user();
    const cart = await call("POST", "/v1/carts", { token: customer.token, body: { store_id: storeId } });
    t.equal(cart.status, 201);
    for (let i = 2; i <= budget; i++) t.equal((await call("GET", `/v1/carts/${String(cart.body.id)}`, { token: customer.token })).status, 200, `call ${i} within the account's budget`);
    const refused = await call("GET", `/v1/carts/${String(cart.body.id)}`, { token: customer.token });
    t.match(refused, { status: 429, body: { code: "rate_limited" } }, "over its budget the account is refused");
    t.ok(Number(refused.headers.get("retry-after")) >= 1, "with Retry-After");
    const other = await user();
    t.equal((await call("POST", "/v1/carts", { token: other.token, body: { store_id: storeId } })).status, 201, "another account has its own budget");

    const guest = await call("POST", "/v1/carts", { body: { store_id: storeId } }); // anonymous: one point of the IP
    t.equal(guest.status, 201);
    const guestToken = String(guest.body.cart_token);
    for (let i = 2; i <= budget; i++) t.equal((await call("GET", `/v1/products?store_id=${storeId}`)).status, 200, `anonymous call ${i} within the IP's budget`);
    const browsing = await call("GET", `/v1/products?store_id=${storeId}`);
    t.match(browsing, { status: 429, body: { code: "rate_limited" } }, "anonymous browsing is limited by client IP");
    t.ok(Number(browsing.headers.get("retry-after")) >= 1, "with Retry-After");
    t.equal((await call("GET", `/v1/carts/${String(guest.body.id)}`, { token: guestToken })).status, 200, "a guest cart token is counted as its own principal, not as the IP");
    t.equal((await call("GET", `/v1/carts/${String(cart.body.id)}`, { token: other.token })).status, 404, "a signed-in customer is not spent by the IP's anonymous calls (and another's cart is 404)");
  }),
);
