/**
 * Realtime for guests (docs/decisions.md, E-commerce slice 3): the reference server's realtime
 * endpoint authenticates user tokens only, so a guest's cart token cannot open a socket (401 at
 * the upgrade, before any subscription exists) and no order event reaches a guest that way; a
 * guest follows its order over HTTP with the same token (GET /v1/orders/:id, timeline included).
 * SQLite and Postgres.
 */
import WebSocket from "ws";
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

/** The status the realtime endpoint answers a socket opened with `token`. */
const upgradeStatus = (url: string, token: string): Promise<number> =>
  new Promise((resolve, reject) => {
    const ws = new WebSocket(`${url.replace("http", "ws")}/v1/realtime`, { headers: { Authorization: `Bearer ${token}` } });
    ws.once("unexpected-response", (_request, response) => {
      resolve(response.statusCode ?? 0);
      ws.terminate();
    });
    ws.once("open", () => {
      resolve(101);
      ws.terminate();
    });
    ws.once("error", (error) => (error.message.includes("Unexpected server response") ? undefined : reject(error)));
  });

t.test("guests cannot subscribe to realtime with a cart token; they follow their order over HTTP with it", (t) =>
  forEachDialectConfig(t, "guest realtime", async (t, _config, dialect) => {
    const { server, call, user, setupStore } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 5 });
    const cart = await call("POST", "/v1/carts", { body: { store_id: storeId } });
    const token = String(cart.body.cart_token);
    const cartId = String(cart.body.id);
    await call("POST", `/v1/carts/${cartId}/lines`, { token, body: { variant_id: variantId, quantity: 1 } });
    const placed = await call("POST", "/v1/orders", { token, key: freshKey(), body: checkoutBody(cartId) });
    t.equal(placed.status, 201);

    t.equal(await upgradeStatus(server.url, token), 401, "a cart token opens no realtime socket");
    const customer = await user();
    t.equal(await upgradeStatus(server.url, customer.token), 101, "a user token does");

    const order = await call("GET", `/v1/orders/${String(placed.body.id)}`, { token });
    t.match(order, { status: 200, body: { id: placed.body.id, status: "confirmed" } }, "the guest reads its order with the cart token");
    t.ok((order.body.timeline as unknown[]).length > 0, "with its timeline");
  }),
);
