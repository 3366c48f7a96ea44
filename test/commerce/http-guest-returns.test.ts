/**
 * A guest's return and its refund over HTTP (spec, E-commerce Endpoints: POST /v1/returns by the
 * "Order owner or support", Idempotency-Key required; Authentication: object-level checks on every
 * return; support's "audited refund request"). A guest returns its order's line with its cart
 * token (another guest or customer: 404); another store's staff reach nothing of the return
 * (404, problem+json); a refund the payment refuses answers `refund_failed`, and support's request
 * again answers the next `refund_attempt`. The guest reads its return's reason on the timeline.
 */
import t from "tap";
import { Effect } from "effect";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

t.test("a guest's return: its token reaches it, no other caller does; a refused refund answers refund_failed and is requested again", (t) =>
  forEachDialectConfig(t, "guest return", async (t, _config, dialect) => {
    const { call, user, setupStore, provider } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId } = await setupStore({ stock: 5 });
    const other = await setupStore({ stock: 1 });
    const created = await call("POST", "/v1/carts", { body: { store_id: storeId } });
    const cartId = String(created.body.id);
    const token = String(created.body.cart_token);
    await call("POST", `/v1/carts/${cartId}/lines`, { token, body: { variant_id: variantId, quantity: 2 } });
    const placed = await call("POST", "/v1/orders", { token, key: freshKey(), body: checkoutBody(cartId) });
    const orderId = String(placed.body.id);
    await call("POST", `/v1/orders/${orderId}/shipments`, { token: owner.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `GR-${orderId}` } });
    const lineId = String(((await call("GET", `/v1/orders/${orderId}`, { token })).body.lines as Array<{ id: string }>)[0]!.id);
    const body = { order_id: orderId, lines: [{ order_line_id: lineId, quantity: 1 }], reason: "the lid is chipped" };

    const otherGuest = String((await call("POST", "/v1/carts", { body: { store_id: storeId } })).body.cart_token);
    const stranger = await user();
    for (const [who, caller] of [["another guest", otherGuest], ["another customer", stranger.token], ["another store's owner", other.owner.token]] as const) {
      const refused = await call("POST", "/v1/returns", { token: caller, key: freshKey(), body });
      t.match(refused, { status: 404, body: { code: "not_found" } }, `${who} cannot return the guest's line`);
      t.equal(refused.headers.get("content-type"), "application/problem+json", "as problem details");
    }
    const ret = await call("POST", "/v1/returns", { token, key: freshKey(), body });
    t.match(ret, { status: 201, body: { order_id: orderId, status: "authorized", reason: "the lid is chipped", refund_attempt: 1 } }, "the guest returns its line");
    const returnId = String(ret.body.id);
    for (const [who, caller] of [["another guest", otherGuest], ["another customer", stranger.token], ["another store's owner", other.owner.token]] as const) {
      t.match(await call("GET", `/v1/returns/${returnId}`, { token: caller }), { status: 404 }, `${who} cannot read the return`);
    }
    t.match(await call("POST", `/v1/returns/${returnId}/refund`, { token: other.owner.token, key: freshKey(), body: { reason: "x" } }), { status: 404 }, "nor request its refund");
    await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "received", reason: "parcel in" } });
    await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "quarantined", reason: "chipped" } });

    // The payment refuses the refund: everything captured was refunded there already.
    const paid = provider.payments()[0]!;
    await Effect.runPromise(provider.refund({ reference: "elsewhere", providerPaymentId: paid.providerPaymentId!, amount: { amount_minor: paid.capturedMinor, currency: paid.amount.currency } }));
    t.match(await call("POST", `/v1/returns/${returnId}/refund`, { token: owner.token, body: { reason: "inspected" } }), { status: 400, body: { code: "idempotency_key_required" } });
    const key = freshKey();
    const refused = await call("POST", `/v1/returns/${returnId}/refund`, { token: owner.token, key, body: { reason: "inspected" } });
    t.match(refused, { status: 200, body: { status: "refund_failed", refund_attempt: 1 } }, "a refused refund has its own stage");
    const again = await call("POST", `/v1/returns/${returnId}/refund`, { token: owner.token, key: freshKey(), body: { reason: "asked the payment again" } });
    t.match(again, { status: 200, body: { status: "refund_failed", refund_attempt: 2 } }, "support requests it again: the next attempt (refused again here)");
    const replay = await call("POST", `/v1/returns/${returnId}/refund`, { token: owner.token, key, body: { reason: "inspected" } });
    t.same([replay.headers.get("idempotent-replayed"), replay.body.refund_attempt], ["true", 1], "a retry of the first request replays its answer, sending nothing");

    const timeline = (await call("GET", `/v1/orders/${orderId}`, { token })).body.timeline as Array<{ kind: string; detail: { reason?: unknown } }>;
    t.equal(timeline.find((e) => e.kind === "return.authorized")?.detail.reason, "the lid is chipped", "the guest reads its return's reason on the timeline");
    t.equal(timeline.filter((e) => e.kind === "return.refund_failed").length, 2, "each refused attempt is on the timeline");
  }),
);

/**
 * Spec (E-commerce: "guest data has retention"). A return's reason is the shopper's free text,
 * cleared by guest retention; the stored answer of POST /v1/returns (the idempotency record) does
 * not keep a copy of it: a replay reads it from the return.
 */
t.test("a return's reason is not kept in the stored answer of its creation: a replay reads it from the return", (t) =>
  forEachDialectConfig(t, "return reason unstored", async (t, _config, dialect) => {
    const { call, server, setupStore } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId } = await setupStore({ stock: 5 });
    const created = await call("POST", "/v1/carts", { body: { store_id: storeId } });
    const cartId = String(created.body.id);
    const token = String(created.body.cart_token);
    await call("POST", `/v1/carts/${cartId}/lines`, { token, body: { variant_id: variantId, quantity: 1 } });
    const orderId = String((await call("POST", "/v1/orders", { token, key: freshKey(), body: checkoutBody(cartId) })).body.id);
    await call("POST", `/v1/orders/${orderId}/shipments`, { token: owner.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `RU-${orderId}` } });
    const lineId = String(((await call("GET", `/v1/orders/${orderId}`, { token })).body.lines as Array<{ id: string }>)[0]!.id);
    const reason = `sent to the wrong flat, ${orderId}`;
    const key = freshKey();
    const body = { order_id: orderId, lines: [{ order_line_id: lineId, quantity: 1 }], reason };
    t.match(await call("POST", "/v1/returns", { token, key, body }), { status: 201, body: { reason } });
    const stored = JSON.stringify(await server.core.database.db.selectFrom("idempotency_keys").select(["scope", "response"]).execute());
    t.ok(stored.includes(orderId), "the answer is stored");
    t.notOk(stored.includes(reason), "without the reason");
    const replay = await call("POST", "/v1/returns", { token, key, body });
    t.same([replay.status, replay.headers.get("idempotent-replayed"), replay.body.reason], [201, "true", reason], "a replay reads it from the return");
  }),
);
