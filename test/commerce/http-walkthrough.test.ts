/**
 * The e-commerce walk-through over HTTP on the reference server (SQLite and Postgres): a store
 * (with its payments merchant), product, stock, public catalog and search, a customer's cart
 * priced server-side, checkout with a test card (Idempotency-Key required; the same key and
 * payload replays the stored answer, another payload is 422), the order timeline, a fulfillment
 * task from OrderConfirmed, dispatch (reservation consumed, payment captured, ShipmentDispatched
 * on the order's realtime channel, the customer mailed), a return through inspection to its
 * refund, and the routes described in the OpenAPI document.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, eventually, freshKey, startCommerceServer } from "./http-support.js";

t.test("product, stock, cart, checkout with a test card, dispatch, return and refund over HTTP", (t) =>
  forEachDialectConfig(t, "walk-through", async (t, _config, dialect) => {
    const { call, user, setupStore, socket, mail } = await startCommerceServer(t, dialect);
    const { owner, store, storeId, locationId, productId, variantId, variant } = await setupStore({ stock: 10 });
    t.match(store, { name: "Tea shop", currency: "EUR", owner_id: owner.id });
    t.type(store.merchant_id, "string", "the store was provisioned a payments merchant");
    t.match(variant, { price_minor: 1000, currency: "EUR", status: "active", version: 1 });

    const listed = await call("GET", `/v1/products?store_id=${storeId}`);
    t.equal(listed.status, 200);
    t.same((listed.body.data as Array<{ id: string }>).map((p) => p.id), [productId], "the public catalog lists the product");
    t.equal((await call("GET", `/v1/products?store_id=${storeId}&q=cast%20tea`)).body.data instanceof Array, true);
    t.equal(((await call("GET", `/v1/products?store_id=${storeId}&q=cast%20tea`)).body.data as unknown[]).length, 1, "search matches word prefixes");
    t.equal(((await call("GET", `/v1/products?store_id=${storeId}&q=kettle`)).body.data as unknown[]).length, 0);
    t.match(await call("GET", `/v1/products?store_id=${storeId}&cursor=not-a-cursor`), { status: 400, body: { code: "invalid_cursor" } });
    t.match(await call("GET", `/v1/products/${productId}`), { status: 200, body: { id: productId, title: "Teapot" } });

    const customer = await user();
    const cart = await call("POST", "/v1/carts", { token: customer.token, body: { store_id: storeId } });
    t.match(cart, { status: 201, body: { customer_id: customer.id, cart_token: null, total_minor: 0, currency: "EUR" } });
    const cartId = String(cart.body.id);
    const priced = await call("POST", `/v1/carts/${cartId}/lines`, { token: customer.token, body: { variant_id: variantId, quantity: 2 } });
    t.match(priced, { status: 200, body: { subtotal_minor: 2000, tax_minor: 200, total_minor: 2200 } });
    t.match((priced.body.lines as unknown[])[0], { variant_id: variantId, quantity: 2, unit_price_minor: 1000, tax_minor: 200, total_minor: 2200 });
    t.match(await call("GET", `/v1/carts/${cartId}`, { token: customer.token }), { status: 200, body: { total_minor: 2200 } });

    t.match(await call("POST", "/v1/orders", { token: customer.token, body: checkoutBody(cartId) }), {
      status: 400,
      body: { code: "idempotency_key_required" },
    });
    const key = freshKey();
    const placed = await call("POST", "/v1/orders", { token: customer.token, key, body: checkoutBody(cartId, { expected_total_minor: 2200 }) });
    t.match(placed, { status: 201, body: { status: "confirmed", total_minor: 2200, customer_id: customer.id } });
    const orderId = String(placed.body.id);
    const replay = await call("POST", "/v1/orders", { token: customer.token, key, body: checkoutBody(cartId, { expected_total_minor: 2200 }) });
    t.equal(replay.status, 201);
    t.equal(replay.headers.get("idempotent-replayed"), "true");
    t.same(replay.body, placed.body, "the same key and payload replays the stored answer");
    t.match(await call("POST", "/v1/orders", { token: customer.token, key, body: checkoutBody(cartId) }), {
      status: 422,
      body: { code: "idempotency_key_reused" },
    });

    const order = await call("GET", `/v1/orders/${orderId}`, { token: customer.token });
    t.match(order, { status: 200, body: { id: orderId, status: "confirmed", lines: [{ variant_id: variantId, quantity: 2, unit_price_minor: 1000 }] } });
    t.same(
      (order.body.timeline as Array<{ kind: string }>).map((e) => e.kind).filter((k) => k.startsWith("order.")),
      ["order.pending", "order.confirmed"],
      "the timeline shows every state change",
    );
    t.same(((await call("GET", "/v1/orders", { token: customer.token })).body.data as Array<{ id: string }>).map((o) => o.id), [orderId]);

    const watcher = await socket(customer.token);
    watcher.send({ type: "subscribe", channel: `shop-order:${orderId}` });
    await eventually(async () => watcher.messages, (m) => m.some((x) => x.type === "subscribed"));

    const tasks = await eventually(
      () => call("GET", `/v1/stores/${storeId}/fulfillment-tasks`, { token: owner.token }),
      (a) => (a.body.data as unknown[] | undefined)?.length === 1,
    );
    t.match(tasks.body, { data: [{ order_id: orderId, status: "open" }] }, "OrderConfirmed created the fulfillment task");

    const shipment = await call("POST", `/v1/orders/${orderId}/shipments`, {
      token: owner.token,
      body: { location_id: locationId, carrier: "DHL", tracking_number: "JD0001" },
    });
    t.match(shipment, { status: 201, body: { order_id: orderId, status: "dispatched", carrier: "DHL", tracking_number: "JD0001" } });
    const stock = await call("GET", `/v1/variants/${variantId}/stock`, { token: owner.token });
    t.match(stock.body, { data: [{ location_id: locationId, on_hand: 8, reserved: 0, available: 8 }] }, "the reservation was consumed");
    const dispatched = await call("GET", `/v1/orders/${orderId}`, { token: customer.token });
    t.equal(dispatched.body.status, "dispatched");
    t.ok((dispatched.body.timeline as Array<{ kind: string }>).some((e) => e.kind === "payment.captured"), "the shipped amount was captured");
    const event = await eventually(
      async () => watcher.messages.find((m) => m.type === "event" && (m.event as { type: string }).type === "ShipmentDispatched"),
      (m) => m !== undefined,
    );
    t.ok(event, "the customer's realtime subscription received ShipmentDispatched");
    await eventually(async () => mail, (m) => m.some((x) => x.subject.includes("has shipped")));
    t.ok(mail.some((m) => m.to === "ada@example.com" && m.subject.includes("has shipped")), "the customer is notified");
    t.match(await call("POST", `/v1/orders/${orderId}/cancel`, { token: customer.token, key: freshKey(), body: {} }), {
      status: 409,
      body: { code: "order_dispatched" },
    });

    const lineId = String((order.body.lines as Array<{ id: string }>)[0]!.id);
    t.match(await call("POST", "/v1/returns", { token: customer.token, key: freshKey(), body: { order_id: orderId, lines: [{ order_line_id: lineId, quantity: 3 }], reason: "too many" } }), {
      status: 422,
      body: { code: "return_not_eligible" },
    });
    const ret = await call("POST", "/v1/returns", {
      token: customer.token,
      key: freshKey(),
      body: { order_id: orderId, lines: [{ order_line_id: lineId, quantity: 1 }], reason: "chipped lid" },
    });
    t.match(ret, { status: 201, body: { order_id: orderId, status: "authorized", refund_minor: 1100 } });
    const returnId = String(ret.body.id);
    t.match(await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "received", reason: "parcel in" } }), {
      status: 200,
      body: { status: "received" },
    });
    t.match(await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "restocked", reason: "lid fine after all" } }), {
      status: 200,
      body: { status: "restocked" },
    });
    t.match(await call("POST", `/v1/returns/${returnId}/refund`, { token: owner.token, key: freshKey(), body: { reason: "return inspected" } }), {
      status: 200,
      body: { status: "closed" },
    });
    t.match(await call("GET", `/v1/returns/${returnId}`, { token: customer.token }), { status: 200, body: { status: "closed" } });
    t.match((await call("GET", `/v1/variants/${variantId}/stock`, { token: owner.token })).body, { data: [{ on_hand: 9 }] }, "the restocked unit is back");

    const openApi = (await call("GET", "/v1/openapi.json")).body as { paths: Record<string, unknown> };
    for (const path of ["/v1/stores", "/v1/products", "/v1/carts/{id}/lines", "/v1/orders", "/v1/orders/{id}", "/v1/orders/{id}/cancel", "/v1/returns"]) {
      t.ok(openApi.paths[path], `${path} is described in the OpenAPI document`);
    }
  }),
);
