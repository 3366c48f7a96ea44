/**
 * Staff reasons on returns are bounded and never a 500 (spec, E-commerce Authentication 4:
 * "Privileged refunds and inventory adjustments are audited with a reason"; conventions: invalid
 * input is 422 with `errors`). A return's stage and refund take a reason of 1 to 1000 characters,
 * like every staff action of the module; restocking records it, shortened, on the stock
 * adjustment it makes (whose reason the database bounds at 500), and whole on the timeline.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

t.test("a return's stage and refund reasons are 1 to 1000 characters: longer is 422 on reason; a long restock reason is recorded, not a 500", (t) =>
  forEachDialectConfig(t, "staff reasons", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId } = await setupStore({ stock: 5 });
    const customer = await user();
    const cartId = await cartWith(customer, storeId, variantId, 2);
    const placed = await call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(cartId) });
    const orderId = String(placed.body.id);
    const lineId = String(((await call("GET", `/v1/orders/${orderId}`, { token: customer.token })).body.lines as Array<{ id: string }>)[0]!.id);
    t.equal((await call("POST", `/v1/orders/${orderId}/shipments`, { token: owner.token, body: { location_id: locationId, carrier: "DHL", tracking_number: `SR-${orderId}` } })).status, 201);
    const ret = await call("POST", "/v1/returns", { token: customer.token, key: freshKey(), body: { order_id: orderId, lines: [{ order_line_id: lineId, quantity: 1 }], reason: "chipped" } });
    t.equal(ret.status, 201);
    const returnId = String(ret.body.id);

    t.match(await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "received", reason: "x".repeat(1001) } }), {
      status: 422,
      body: { code: "validation_failed", errors: [{ path: "reason" }] },
    });
    t.equal((await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "received", reason: "parcel in" } })).status, 200);
    const long = `inspected: ${"as new ".repeat(140)}`.slice(0, 1000);
    t.match(await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "restocked", reason: long } }), { status: 200, body: { status: "restocked" } });
    t.match((await call("GET", `/v1/variants/${variantId}/stock`, { token: owner.token })).body, { data: [{ on_hand: 4 }] }, "the unit is back on hand");
    const timeline = (await call("GET", `/v1/orders/${orderId}`, { token: owner.token })).body.timeline as Array<{ kind: string; detail: { reason?: string } }>;
    t.equal(timeline.find((e) => e.kind === "return.restocked")?.detail.reason, long, "the timeline keeps the whole reason");

    t.match(await call("POST", `/v1/returns/${returnId}/refund`, { token: owner.token, key: freshKey(), body: { reason: "y".repeat(1001) } }), {
      status: 422,
      body: { code: "validation_failed", errors: [{ path: "reason" }] },
    });
    t.match(await call("POST", `/v1/returns/${returnId}/refund`, { token: owner.token, key: freshKey(), body: { reason: "inspected" } }), { status: 200, body: { status: "closed" } });
  }),
);
