/**
 * Spec (E-commerce: "Stored addresses are minimized, sensitive fields are encrypted, and guest
 * data has retention"). An order's e-mail and shipping address are sealed at rest on the order;
 * the answers of checkout and cancellation, which carry them, are stored by the idempotency path
 * (kept at least 24 hours) without them: a replay carries them as the order holds them now.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

t.test("an order's e-mail and address never sit in clear in a stored answer: checkout and cancellation replays carry them from the order", (t) =>
  forEachDialectConfig(t, "sealed answers", async (t, _config, dialect) => {
    const { call, server, setupStore } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 5 });
    const created = await call("POST", "/v1/carts", { body: { store_id: storeId } });
    const cartId = String(created.body.id);
    const token = String(created.body.cart_token);
    await call("POST", `/v1/carts/${cartId}/lines`, { token, body: { variant_id: variantId, quantity: 1 } });
    const email = `guest-${cartId}@example.com`;
    const address = { name: "Grace Hopper", line1: `${cartId} Harbour Lane`, city: "Arlington", postcode: "22201", country: "US" };
    const checkoutKey = freshKey();
    const body = { ...checkoutBody(cartId), email, shipping_address: address };
    const placed = await call("POST", "/v1/orders", { token, key: checkoutKey, body });
    t.match(placed, { status: 201, body: { email, shipping_address: address } }, "the first answer carries them");
    const orderId = String(placed.body.id);
    const cancelKey = freshKey();
    t.match(await call("POST", `/v1/orders/${orderId}/cancel`, { token, key: cancelKey, body: { reason: "" } }), { status: 202, body: { email, shipping_address: address } });

    const stored = JSON.stringify(await server.core.database.db.selectFrom("idempotency_keys").select(["scope", "response"]).execute());
    t.ok(stored.includes(orderId), "the answers are stored");
    t.notOk(stored.includes(email), "without the e-mail");
    t.notOk(stored.includes(address.line1), "without the address");

    const replay = await call("POST", "/v1/orders", { token, key: checkoutKey, body });
    t.equal(replay.headers.get("idempotent-replayed"), "true");
    t.match(replay.body, { id: orderId, email, shipping_address: address }, "a replay carries them from the order");
    const cancelReplay = await call("POST", `/v1/orders/${orderId}/cancel`, { token, key: cancelKey, body: { reason: "" } });
    t.equal(cancelReplay.headers.get("idempotent-replayed"), "true");
    t.match(cancelReplay.body, { id: orderId, email, shipping_address: address });
  }),
);
