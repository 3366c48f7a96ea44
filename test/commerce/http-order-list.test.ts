/**
 * GET /v1/orders?cursor (issue, Orders): the caller's own orders, newest first, in keyset pages
 * whose cursor walks every order once; another customer's orders never appear. SQLite and Postgres.
 */
import t from "tap";
import { forEachDialectConfig } from "../hosts/support.js";
import { checkoutBody, freshKey, startCommerceServer } from "./http-support.js";

t.test("GET /v1/orders lists the caller's orders newest first by a keyset cursor, and only theirs", (t) =>
  forEachDialectConfig(t, "order list", async (t, _config, dialect) => {
    const { call, user, setupStore, cartWith } = await startCommerceServer(t, dialect);
    const { storeId, variantId } = await setupStore({ stock: 10 });
    const customer = await user();
    const other = await user();
    const placed: string[] = [];
    for (let i = 0; i < 3; i++) {
      const order = await call("POST", "/v1/orders", { token: customer.token, key: freshKey(), body: checkoutBody(await cartWith(customer, storeId, variantId, 1)) });
      placed.push(String(order.body.id));
    }
    await call("POST", "/v1/orders", { token: other.token, key: freshKey(), body: checkoutBody(await cartWith(other, storeId, variantId, 1)) });

    const first = await call("GET", "/v1/orders?limit=2", { token: customer.token });
    t.equal(first.status, 200);
    const firstIds = (first.body.data as Array<{ id: string }>).map((o) => o.id);
    t.same(firstIds, [placed[2], placed[1]], "newest first");
    t.type(first.body.next_cursor, "string");
    const second = await call("GET", `/v1/orders?limit=2&cursor=${encodeURIComponent(String(first.body.next_cursor))}`, { token: customer.token });
    t.same((second.body.data as Array<{ id: string }>).map((o) => o.id), [placed[0]], "the cursor continues after the last row");
    t.equal(second.body.next_cursor, null, "the last page has no cursor");
    const theirs = await call("GET", "/v1/orders", { token: other.token });
    t.equal((theirs.body.data as unknown[]).length, 1, "another customer sees only their own order");
  }),
);
