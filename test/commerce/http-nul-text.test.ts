/**
 * Text with a NUL character is refused as invalid input, never a 500 (conventions: "Validation
 * failures (400 for malformed syntax, 422 for well-formed but invalid input) add errors"; brief:
 * bad input of every kind answers a precise problem+json). Postgres text cannot hold U+0000, so
 * such a name, address, reason or id reached the database and failed there. The route machinery
 * refuses it for every module (adapters/koa/Decode.ts `nulRefusal`); this pins it on commerce routes.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

const nul = "\u0000";

t.test("text with a NUL character is 422 in a body and 400 in a path or query, on its path, never a 500", (t) =>
  forEachDialectConfig(t, "nul text", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith } = await startCommerceServer(t, dialect);
    const { owner, storeId, variantId } = await setupStore({ stock: 5 });
    const customer = await user();
    const cartId = await cartWith(customer, storeId, variantId, 1);
    const invalid = (status: number, path: string) => ({ status, body: { code: "validation_failed", errors: [{ path }] } });

    t.match(await call("POST", "/v1/stores", { token: owner.token, body: { name: `Tea${nul}shop`, currency: "EUR" } }), invalid(422, "name"));
    t.match(await call("POST", `/v1/stores/${storeId}/products`, { token: owner.token, body: { title: `Pot${nul}`, variants: [{ sku: "NUL-1", price_minor: 1 }] } }), invalid(422, "title"));
    t.match(await call("POST", `/v1/stores/${storeId}/locations`, { token: owner.token, body: { name: `Shed${nul}` } }), invalid(422, "name"));
    t.match(await call("POST", `/v1/carts/${cartId}/lines`, { token: customer.token, body: { variant_id: `v${nul}`, quantity: 1 } }), invalid(422, "variant_id"));
    t.match(
      await call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(cartId, { shipping_address: { name: `Ada${nul}`, line1: "1 St", city: "London", postcode: "N1", country: "GB" } }) }),
      invalid(422, "shipping_address.name"),
    );
    t.match(await call("GET", `/v1/orders/o%00rder`, { token: customer.token }), invalid(400, "id"));
    t.match(await call("GET", `/v1/products?store_id=${storeId}&q=tea%00pot`), invalid(400, "q"));
    t.match(await call("POST", "/v1/inventory/adjustments", { token: owner.token, body: { variant_id: variantId, location_id: "l", delta: 1, reason: `why${nul}` } }), invalid(422, "reason"));
  }),
);
