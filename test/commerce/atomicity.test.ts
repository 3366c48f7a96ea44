/**
 * Issue rule 5 (first half): the order, its lines and its outbox row commit together. A checkout
 * refused inside its transaction after it had already reserved stock for an earlier line (the
 * last line is short) leaves nothing behind: no order, line, reservation, payment record,
 * timeline entry, outbox row or checkout record, no stock reserved, and the cart still open, so
 * the same request succeeds once the stock is there. SQLite and Postgres.
 */
import { randomUUID } from "node:crypto";
import { sql } from "kysely";
import t from "tap";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { createProduct } from "../../core/commerce/Catalog.js";
import { createLocation, createStore } from "../../core/commerce/CreateStore.js";
import { adjustStock } from "../../core/commerce/Inventory.js";
import { placeOrder } from "../../core/commerce/PlaceOrder.js";
import { checkoutInput, commerceRuntime, customer, forEachCommerceDialect } from "./support.js";

const count = async (db: SqlDatabase, table: string): Promise<number> =>
  Number((await sql<{ n: number | string }>`SELECT count(*) AS n FROM ${sql.table(table)}`.execute(db.db)).rows[0]?.n ?? 0);

t.test("the order, its lines and its outbox row commit together: a checkout refused mid-transaction leaves nothing", (t) =>
  forEachCommerceDialect(t, "checkout atomicity", async (t, db) => {
    const c = commerceRuntime(t, db);
    const owner = randomUUID();
    const store = await c.run(createStore(owner, { name: "Atomic shop", currency: "EUR" }));
    const location = await c.run(createLocation(owner, store.id, { name: "Main" }));
    // Variant ids are time-ordered, so the first variant's line is reserved before the second's.
    const product = await c.run(
      createProduct(owner, store.id, { title: "Tea set", variants: [{ sku: `A-${randomUUID().slice(0, 6)}`, priceMinor: 500 }, { sku: `B-${randomUUID().slice(0, 6)}`, priceMinor: 700 }] }),
    );
    const [first, second] = product.variants;
    await c.run(adjustStock(owner, { variantId: first!.id, locationId: location.id, delta: 5, reason: "stock" }));
    await c.run(adjustStock(owner, { variantId: second!.id, locationId: location.id, delta: 1, reason: "stock" }));
    const shopper = customer();
    const { cart } = await c.run(createCart(shopper.userId, store.id));
    await c.run(setCartLine(shopper, cart.id, { variantId: first!.id, quantity: 2 }));
    await c.run(setCartLine(shopper, cart.id, { variantId: second!.id, quantity: 1 }));
    // Someone else's adjustment leaves the second line short after the cart was filled.
    await c.run(adjustStock(owner, { variantId: second!.id, locationId: location.id, delta: -1, reason: "damaged" }));
    const outboxBefore = await count(db, "outbox");

    const input = checkoutInput(cart.id);
    const refused = await c.attempt(placeOrder(shopper, input));
    t.equal(refused.ok ? "" : (refused.error as { code: string }).code, "insufficient_stock");
    for (const table of ["shop_orders", "shop_order_lines", "shop_reservations", "shop_order_payments", "shop_order_timeline", "shop_checkout_requests"]) {
      t.equal(await count(db, table), 0, `no row in ${table}`);
    }
    t.equal(await count(db, "outbox"), outboxBefore, "no outbox row");
    const stock = await db.db.selectFrom("shop_inventory").select(["variant_id", "reserved"]).execute();
    t.same(stock.map((s) => Number(s.reserved)), [0, 0], "the first line's reservation was rolled back with the rest");
    t.equal((await db.db.selectFrom("shop_carts").select("status").where("id", "=", cart.id).executeTakeFirstOrThrow()).status, "open", "the cart is still open");

    await c.run(adjustStock(owner, { variantId: second!.id, locationId: location.id, delta: 1, reason: "found" }));
    const placed = await c.run(placeOrder(shopper, input));
    t.equal(placed.order.status, "confirmed", "the same request succeeds once the stock is there");
    t.equal(await count(db, "shop_order_lines"), 2);
  }),
);
