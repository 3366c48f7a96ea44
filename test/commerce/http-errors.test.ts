/**
 * Every answer of the e-commerce routes over HTTP (SQLite and Postgres): checkout's 201
 * `payment_pending` (an unknown provider answer is never guessed), 402 payment_declined (order
 * failed, stock released), 409 insufficient_stock / variant_unavailable / price_changed with a
 * diff / cart_checked_out, 422 for an empty cart, a bad address or an unknown promotion code;
 * cancellation 202 and 409 after dispatch; returns 409 for an order in no state to return;
 * catalog 409 sku_taken, variant 428/412; stock 409 stock_below_reserved; 403 for another role,
 * 404 for another customer's or another store's objects. 429 checkout_risk with Retry-After after
 * repeated declines is in http-checkout-risk-signals.test.ts (a customer's own bound, a network's,
 * an e-mail's).
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

t.test("checkout answers 201 confirmed or payment_pending, 402, 409 and 422 as the spec lists", (t) =>
  forEachDialectConfig(t, "checkout answers", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId } = await setupStore({ stock: 3 });
    const customer = await user();
    const checkout = (cartId: string, overrides: Record<string, unknown> = {}) =>
      call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(cartId, overrides) });
    const stock = async () => ((await call("GET", `/v1/variants/${variantId}/stock`, { token: owner.token })).body.data as Array<Record<string, number>>)[0]!;

    const declinedCart = await cartWith(customer, storeId, variantId, 1);
    const declined = await checkout(declinedCart, { payment_method: "pm_card_declined" });
    t.match(declined, { status: 402, body: { code: "payment_declined", decline_code: "card_declined" } });
    t.match(await call("GET", `/v1/orders/${String(declined.body.order_id)}`, { token: customer.token }), { body: { status: "failed" } });
    t.equal((await stock()).reserved, 0, "a declined order's reservation is released");

    const pendingCart = await cartWith(customer, storeId, variantId, 1);
    const pending = await checkout(pendingCart, { payment_method: "pm_card_timeout_after" });
    t.match(pending, { status: 201, body: { status: "payment_pending" } }, "an unknown provider answer is payment_pending, never guessed");
    t.equal((await stock()).reserved, 1, "its stock stays reserved until the lookup resolves it");

    const priceCart = await cartWith(customer, storeId, variantId, 1);
    t.match(await checkout(priceCart, { expected_total_minor: 999 }), {
      status: 409,
      body: { code: "price_changed", diff: { expected_total_minor: 999, total_minor: 1100, currency: "EUR" } },
    });
    t.match(await checkout(await cartWith(customer, storeId, variantId, 1), { promotion_codes: ["NOPE"] }), { status: 422, body: { code: "promotion_invalid" } });
    t.match(await checkout(await cartWith(customer, storeId, variantId, 1), { shipping_address: { name: "A", line1: "B", city: "C", postcode: "D", country: "England" } }), {
      status: 422,
      body: { code: "validation_failed" },
    });
    const empty = await call("POST", "/v1/carts", { token: customer.token, body: { store_id: storeId } });
    t.match(await checkout(String(empty.body.id)), { status: 422, body: { code: "validation_failed", errors: [{ path: "cart_id" }] } });

    // The last two units: one customer's cart takes them, the other loses the race at checkout.
    const rival = await user();
    const first = await cartWith(customer, storeId, variantId, 2);
    const second = await cartWith(rival, storeId, variantId, 2);
    t.match(await checkout(first), { status: 201, body: { status: "confirmed" } });
    t.match(await call("POST", "/v1/orders", { token: rival.token, key: freshKey(), body: checkoutBody(second) }), {
      status: 409,
      body: { code: "insufficient_stock", variant_id: variantId },
    });
    t.match(await call("POST", `/v1/carts/${first}/lines`, { token: customer.token, body: { variant_id: variantId, quantity: 1 } }), {
      status: 409,
      body: { code: "cart_checked_out" },
    });
    t.match(await call("POST", `/v1/carts/${second}/lines`, { token: rival.token, body: { variant_id: variantId, quantity: 5 } }), {
      status: 409,
      body: { code: "insufficient_stock" },
    });

    const product = await call("POST", `/v1/stores/${storeId}/products`, { token: owner.token, body: { title: "Cup", variants: [{ sku: "CUP-1", price_minor: 300 }] } });
    const cup = (product.body.variants as Array<{ id: string }>)[0]!.id;
    await call("POST", "/v1/inventory/adjustments", { token: owner.token, body: { variant_id: cup, location_id: locationId, delta: 5, reason: "delivery" } });
    t.equal((await call("PATCH", `/v1/variants/${cup}`, { token: owner.token, body: { status: "inactive" } })).status, 428, "PATCH needs If-Match");
    t.match(await call("PATCH", `/v1/variants/${cup}`, { token: owner.token, body: { status: "inactive" }, headers: { "If-Match": '"7"' } }), {
      status: 412,
      body: { code: "version_mismatch", current: { id: cup, version: 1 } },
    });
    const patched = await call("PATCH", `/v1/variants/${cup}`, { token: owner.token, body: { status: "inactive" }, headers: { "If-Match": '"1"' } });
    t.match(patched, { status: 200, body: { status: "inactive", version: 2 } });
    t.equal(patched.headers.get("etag"), '"2"');
    t.match(await call("POST", `/v1/carts/${second}/lines`, { token: rival.token, body: { variant_id: cup, quantity: 1 } }), {
      status: 409,
      body: { code: "variant_unavailable" },
    });

    const cancelled = await call("POST", `/v1/orders/${String(pending.body.id)}/cancel`, { token: customer.token, key: freshKey(), body: {} });
    t.equal(cancelled.status, 202, "cancellation is accepted");
    t.match(await call("POST", "/v1/returns", { token: customer.token, key: freshKey(), body: { order_id: String(declined.body.order_id), lines: [], reason: "x" } }), {
      status: 422,
    });
    const failedOrder = await call("GET", `/v1/orders/${String(declined.body.order_id)}`, { token: customer.token });
    const lineId = String((failedOrder.body.lines as Array<{ id: string }>)[0]!.id);
    t.match(
      await call("POST", "/v1/returns", { token: customer.token, key: freshKey(), body: { order_id: String(declined.body.order_id), lines: [{ order_line_id: lineId, quantity: 1 }], reason: "x" } }),
      { status: 409, body: { code: "order_state_conflict" } },
      "a failed order has nothing to return",
    );
    t.match(await call("POST", `/v1/orders/${String(pending.body.id)}/cancel`, { token: customer.token, body: {} }), {
      status: 400,
      body: { code: "idempotency_key_required" },
    });
  }),
);

t.test("catalog, stock and access: 409 sku_taken and stock_below_reserved, 403 for another role, 404 across customers and stores", (t) =>
  forEachDialectConfig(t, "catalog and access", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId, variant } = await setupStore({ stock: 2 });
    const other = await setupStore({ stock: 2 });
    t.match(await call("POST", `/v1/stores/${storeId}/products`, { token: owner.token, body: { title: "Again", variants: [{ sku: String(variant.sku), price_minor: 1 }] } }), {
      status: 409,
      body: { code: "sku_taken" },
    });
    t.match(await call("POST", `/v1/stores/${storeId}/products`, { token: owner.token, body: { title: "", variants: [{ sku: "X", price_minor: -1 }] } }), {
      status: 422,
    });
    t.match(await call("POST", "/v1/stores", { token: owner.token, body: { name: "Bad", currency: "euro" } }), { status: 422 });

    const customer = await user();
    const cartId = await cartWith(customer, storeId, variantId, 2);
    const placed = await call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(cartId) });
    const orderId = String(placed.body.id);
    t.match(await call("POST", "/v1/inventory/adjustments", { token: owner.token, body: { variant_id: variantId, location_id: locationId, delta: -1, reason: "broken" } }), {
      status: 409,
      body: { code: "stock_below_reserved" },
    });

    const warehouse = await user();
    t.equal((await call("POST", `/v1/stores/${storeId}/staff`, { token: owner.token, body: { user_id: warehouse.id, role: "warehouse_operator" } })).status, 201);
    t.match(await call("POST", `/v1/stores/${storeId}/products`, { token: warehouse.token, body: { title: "Mug", variants: [{ sku: "MUG", price_minor: 1 }] } }), {
      status: 403,
      body: { code: "forbidden" },
    });
    t.match(await call("POST", `/v1/stores/${storeId}/staff`, { token: warehouse.token, body: { user_id: customer.id, role: "support" } }), { status: 403 });

    const stranger = await user();
    t.match(await call("GET", `/v1/orders/${orderId}`, { token: stranger.token }), { status: 404, body: { code: "not_found" } }, "another customer's order is 404");
    t.match(await call("GET", `/v1/carts/${cartId}`, { token: stranger.token }), { status: 404 }, "another customer's cart is 404");
    t.match(await call("GET", `/v1/orders/${orderId}`, { token: other.owner.token }), { status: 404 }, "another store's staff get 404");
    t.match(await call("POST", `/v1/orders/${orderId}/cancel`, { token: other.owner.token, key: freshKey(), body: { reason: "x" } }), { status: 404 });
    t.match(await call("POST", `/v1/orders/${orderId}/shipments`, { token: other.owner.token, body: { location_id: other.locationId, carrier: "DHL", tracking_number: "1" } }), {
      status: 404,
    });
    t.match(await call("GET", `/v1/variants/${variantId}/stock`, { token: other.owner.token }), { status: 404 });
    t.match(await call("POST", "/v1/inventory/adjustments", { token: other.owner.token, body: { variant_id: variantId, location_id: locationId, delta: 1, reason: "x" } }), {
      status: 404,
    });
    t.match(await call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: other.owner.token }), { status: 404 });
    t.match(await call("POST", `/v1/orders/${orderId}/cancel`, { token: owner.token, key: freshKey(), body: {} }), {
      status: 422,
      body: { code: "validation_failed" },
    }, "support must give a reason");
    t.match(await call("POST", `/v1/orders/${orderId}/cancel`, { token: owner.token, key: freshKey(), body: { reason: "customer called" } }), {
      status: 202,
      body: { status: "cancelled" },
    }, "support cancels with a reason");
    t.match(await call("GET", `/v1/orders`, { token: stranger.token }), { status: 200, body: { data: [] } });
    t.match(await call("GET", `/v1/orders?cursor=bogus`, { token: customer.token }), { status: 400, body: { code: "invalid_cursor" } });
    t.match(await call("GET", `/v1/orders/${orderId}`), { status: 401 });
  }),
);
