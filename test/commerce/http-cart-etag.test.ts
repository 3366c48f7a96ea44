/**
 * A cart is versioned, so every cart answer carries `ETag: "<version>"` (docs/conventions.md,
 * Optimistic concurrency: "Versioned resources answer with `ETag`"), as orders and returns do:
 * its creation, its read and each change of a line.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { startCommerceServer } from "./http-support.js";

t.test("versioned resources answer with ETag: every cart answer carries its version", (t) =>
  forEachDialectConfig(t, "cart etag", async (t, _config, dialect) => {
    const { call, user, setupStore } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 5 });
    const shopper = await user();
    const tagged = (answer: { status: number; body: Record<string, unknown>; headers: Headers }, status: number, what: string) => {
      t.equal(answer.status, status, `${what} answers ${status}`);
      t.equal(answer.headers.get("etag"), `"${String(answer.body.version)}"`, `${what} carries ETag: "<version>" (version ${String(answer.body.version)})`);
    };

    const created = await call("POST", "/v1/carts", { token: shopper.token, body: { store_id: storeId } });
    tagged(created, 201, "POST /v1/carts");
    const cartId = String(created.body.id);
    const added = await call("POST", `/v1/carts/${cartId}/lines`, { token: shopper.token, body: { variant_id: variantId, quantity: 2 } });
    tagged(added, 200, "POST /v1/carts/:id/lines");
    const changed = await call("POST", `/v1/carts/${cartId}/lines`, { token: shopper.token, body: { variant_id: variantId, quantity: 1 } });
    tagged(changed, 200, "POST /v1/carts/:id/lines again");
    t.not(changed.headers.get("etag"), added.headers.get("etag"), "a change of the cart changes its ETag");
    tagged(await call("GET", `/v1/carts/${cartId}`, { token: shopper.token }), 200, "GET /v1/carts/:id");

    const guest = await call("POST", "/v1/carts", { body: { store_id: storeId } });
    tagged(guest, 201, "POST /v1/carts (a guest's cart)");
    tagged(await call("GET", `/v1/carts/${String(guest.body.id)}`, { token: String(guest.body.cart_token) }), 200, "GET /v1/carts/:id (the guest)");
  }),
);
