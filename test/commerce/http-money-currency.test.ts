/**
 * Money is answered with its currency (docs/conventions.md, HTTP: "Money is `*_minor` integers
 * plus an ISO 4217 `currency`"): a shipment's `amount_minor` and a return's `refund_minor` are
 * answered with their order's currency on every route that answers them. The store here sells in
 * GBP (the fixture's default is EUR), so a currency written into the code would not pass. The
 * OpenAPI document declares no commerce answer with an amount and no currency.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";
import { moneyWithoutCurrency, type OpenApiDocument } from "../support/money-without-currency.js";

t.test("money is answered with its currency: a shipment and a return carry their order's currency on every route", (t) =>
  forEachDialectConfig(t, "money currency", async (t, _config, dialect) => {
    const { call, setupStore } = await startCommerceServer(t, dialect);
    const { owner, storeId, locationId, variantId } = await setupStore({ stock: 5, currency: "GBP" });
    const created = await call("POST", "/v1/carts", { body: { store_id: storeId } });
    const cartId = String(created.body.id);
    const token = String(created.body.cart_token);
    await call("POST", `/v1/carts/${cartId}/lines`, { token, body: { variant_id: variantId, quantity: 2 } });
    const placed = await call("POST", "/v1/orders", { token, key: freshKey(), body: checkoutBody(cartId) });
    t.match(placed, { status: 201, body: { currency: "GBP" } }, "the order is in the store's currency");
    const orderId = String(placed.body.id);

    const shipment = await call("POST", `/v1/orders/${orderId}/shipments`, {
      token: owner.token,
      body: { location_id: locationId, carrier: "DHL", tracking_number: `MC-${orderId}` },
    });
    t.match(shipment, { status: 201, body: { amount_minor: 2200, currency: "GBP" } }, "POST /v1/orders/:id/shipments: the shipped amount with its currency");

    const lineId = String(((await call("GET", `/v1/orders/${orderId}`, { token })).body.lines as Array<{ id: string }>)[0]!.id);
    const ret = await call("POST", "/v1/returns", { token, key: freshKey(), body: { order_id: orderId, lines: [{ order_line_id: lineId, quantity: 1 }], reason: "too big" } });
    t.match(ret, { status: 201, body: { refund_minor: 1100, currency: "GBP" } }, "POST /v1/returns: the refund with its currency");
    const returnId = String(ret.body.id);
    t.match(await call("GET", `/v1/returns/${returnId}`, { token }), { status: 200, body: { refund_minor: 1100, currency: "GBP" } }, "GET /v1/returns/:id");
    t.match(
      await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "received", reason: "parcel in" } }),
      { status: 200, body: { status: "received", currency: "GBP" } },
      "POST /v1/returns/:id/stage (received)",
    );
    t.match(
      await call("POST", `/v1/returns/${returnId}/stage`, { token: owner.token, body: { to: "restocked", reason: "as new" } }),
      { status: 200, body: { status: "restocked", currency: "GBP" } },
      "POST /v1/returns/:id/stage (restocked)",
    );
    t.match(
      await call("POST", `/v1/returns/${returnId}/refund`, { token: owner.token, key: freshKey(), body: { reason: "inspected" } }),
      { status: 200, body: { refund_minor: 1100, currency: "GBP" } },
      "POST /v1/returns/:id/refund",
    );

    const document = (await call("GET", "/v1/openapi.json")).body as unknown as OpenApiDocument;
    t.same(moneyWithoutCurrency(document, "commerce"), [], "the OpenAPI document declares no commerce answer with an amount and no currency");
  }),
);
