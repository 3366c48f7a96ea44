/**
 * E-commerce under load. `commerce-checkout`: POST /v1/orders for a cart of three lines with the
 * sandbox's succeeding card, each request its own cart and Idempotency-Key (HTTP idempotency
 * reserve; in one transaction the checkout record, cart checked out, server-side price, three
 * conditional stock reservations, order, lines, reservations, payment record, timeline, expiry
 * job and outbox row; then the in-process authorization outside it and the confirm transaction).
 * Its raw baseline is the same reservation + order + outbox transaction on the bare driver.
 * `commerce-catalog`: GET /v1/products, the public first page of a store's catalog.
 */
import { randomUUID } from "node:crypto";
import { Effect } from "effect";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { createProduct } from "../../core/commerce/Catalog.js";
import { createLocation, createStore } from "../../core/commerce/CreateStore.js";
import { adjustStock } from "../../core/commerce/Inventory.js";
import type { RawDatabase } from "../RawDatabase.js";
import { rawRunner } from "../RawStatements.js";
import { measureOps } from "../RawLoop.js";
import type { BenchRequest, BenchTarget, Scenario } from "../Scenario.js";
import type { VariantId } from "../../core/commerce/model/Ids.js";

/**
 * Carts per HTTP connection, enough for a 5 s run at a few hundred checkouts per second; past
 * them the plan wraps around and repeated checkouts are idempotent replays (reported 2xx), so
 * raise this for long runs.
 */
const cartsPerConnection = 300;

/** A store with one location and a product of three variants, each with a large stock. */
const benchStore = async (target: BenchTarget) => {
  const runtime = target.server.core.runtime;
  const owner = randomUUID();
  const store = await runtime.runPromise(createStore(owner, { name: "Bench shop", currency: "EUR", taxRateBasisPoints: 2000 }));
  const location = await runtime.runPromise(createLocation(owner, store.id, { name: "Bench warehouse" }));
  const product = await runtime.runPromise(
    createProduct(owner, store.id, {
      title: "Bench teapot",
      description: "cast iron",
      variants: [0, 1, 2].map((i) => ({ sku: `BENCH-${i}-${randomUUID().slice(0, 6)}`, priceMinor: 1500 + i * 500 })),
    }),
  );
  for (const variant of product.variants) {
    await runtime.runPromise(adjustStock(owner, { variantId: variant.id, locationId: location.id, delta: 10_000_000, reason: "bench stock" }));
  }
  return { store, location, variants: product.variants };
};

const address = { name: "Ada Lovelace", line1: "1 Analytical St", city: "London", postcode: "N1 1AA", country: "GB" };

/** A checkout plan: `connections × cartsPerConnection` carts of `linesOf(variants)`, each its own key. */
const checkoutPlan = async (
  target: BenchTarget,
  connections: number,
  linesOf: (variants: ReadonlyArray<{ readonly id: VariantId }>) => ReadonlyArray<{ readonly id: VariantId }>,
): Promise<{ readonly requests: ReadonlyArray<BenchRequest> }> => {
  const runtime = target.server.core.runtime;
  const { store, variants } = await benchStore(target);
  const customers = await Promise.all(
    Array.from({ length: connections }, async () => {
      const id = randomUUID();
      return { id, token: await mintToken({ secret: target.jwtSecret, userId: id, ttlSeconds: 3600 }) };
    }),
  );
  const requests: BenchRequest[] = [];
  for (let i = 0; i < connections * cartsPerConnection; i++) {
    const customer = customers[i % customers.length]!;
    const shopper = { kind: "customer" as const, userId: customer.id };
    const cartId = await runtime.runPromise(
      Effect.gen(function* () {
        const { cart } = yield* createCart(customer.id, store.id);
        for (const variant of linesOf(variants)) yield* setCartLine(shopper, cart.id, { variantId: variant.id, quantity: 1 });
        return cart.id;
      }),
    );
    requests.push({
      method: "POST",
      path: "/v1/orders",
      headers: { authorization: `Bearer ${customer.token}`, "content-type": "application/json", "idempotency-key": `bench-${cartId}` },
      body: JSON.stringify({ cart_id: cartId, payment_method: "pm_card_visa", shipping_address: address, email: "bench@example.com" }),
    });
  }
  return { requests };
};

/** Checkout of a three-line cart, against the bare reservation + order + outbox transaction. */
export const commerceCheckout: Scenario = {
  name: "commerce-checkout",
  description: "POST /v1/orders (3 lines, pm_card_visa): price, 3 reservations, order + lines + outbox in one transaction, in-process authorization",
  setup: (target, { connections }) => checkoutPlan(target, connections, (variants) => variants),
  rawBaseline: async (db, bounds) => {
    // The server's in-process relay may still be delivering the HTTP run's events: wait for its writes.
    const busyTimeout: unknown = db.dialect === "sqlite" ? db.sqlite.pragma("busy_timeout", { simple: true }) : null;
    const restore = () => {
      if (db.dialect === "sqlite") db.sqlite.pragma(`busy_timeout = ${Number(busyTimeout)}`);
    };
    if (db.dialect === "sqlite") db.sqlite.pragma("busy_timeout = 60000");
    // Let the relay finish the HTTP run's events first (its deliveries hold the one write lock).
    await waitForRelay(db);
    const fixture = await rawFixture(db).catch((error: unknown) => {
      restore();
      throw error;
    });
    const op = (sequence: number) => checkoutStatements(db.dialect, fixture, sequence);
    if (db.dialect === "sqlite") {
      const sqlite = db.sqlite;
      const prepared = new Map<string, ReturnType<typeof sqlite.prepare<unknown[]>>>();
      const run = (sql: string, params: ReadonlyArray<unknown>) => {
        let statement = prepared.get(sql);
        if (statement === undefined) {
          statement = sqlite.prepare<unknown[]>(sql);
          prepared.set(sql, statement);
        }
        return statement.run(...params);
      };
      const measured = await measureOps((sequence) => {
        run("BEGIN IMMEDIATE", []);
        for (const [sql, params] of op(sequence)) {
          const result = run(sql, params);
          if (sql.startsWith("UPDATE shop_inventory") && result.changes !== 1) throw new Error("raw baseline: stock exhausted");
        }
        run("COMMIT", []);
      }, bounds).finally(restore);
      return { ...measured, label: rawLabel };
    }
    const runner = rawRunner(db);
    const measured = await measureOps((sequence) => runner.inTransaction(op(sequence)), bounds);
    return { ...measured, label: rawLabel };
  },
};

const rawLabel =
  "BEGIN; insert checkout record; 3 × conditional reserve UPDATE; insert order, 3 lines, 3 reservations, payment record, timeline entry, outbox row; COMMIT";

/** Waits (up to 30 s) until no outbox event is pending, so the raw loop does not compete with the relay. */
const waitForRelay = async (db: RawDatabase): Promise<void> => {
  const until = Date.now() + 30_000;
  const pending = async (): Promise<number> => {
    if (db.dialect === "sqlite") return Number((db.sqlite.prepare("SELECT count(*) AS n FROM outbox WHERE status = 'pending'").get() as { n: number }).n);
    return Number((await db.pool.query<{ n: string }>("SELECT count(*) AS n FROM outbox WHERE status = 'pending'")).rows[0]?.n ?? 0);
  };
  while (Date.now() < until && (await pending()) > 0) await new Promise((resolve) => setTimeout(resolve, 200));
};

interface RawFixture {
  readonly storeId: string;
  readonly locationId: string;
  readonly variants: ReadonlyArray<string>;
  readonly run: string;
}

/** `?` placeholders as the dialect wants them. */
const sqlFor = (dialect: RawDatabase["dialect"], sql: string): string => {
  if (dialect === "sqlite") return sql;
  let n = 0;
  return sql.replace(/\?/g, () => `$${++n}`);
};

/** A store, location, product and three variants with stock, written with the bare driver. */
const rawFixture = async (db: RawDatabase): Promise<RawFixture> => {
  const now = new Date().toISOString();
  const storeId = randomUUID();
  const locationId = randomUUID();
  const productId = randomUUID();
  const variants = [randomUUID(), randomUUID(), randomUUID()];
  const statements: Array<[string, ReadonlyArray<unknown>]> = [
    ["INSERT INTO shop_stores (id, name, currency, owner_id, merchant_id, tax_rate_basis_points, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [storeId, "Raw shop", "EUR", randomUUID(), randomUUID(), 2000, now]],
    ["INSERT INTO shop_locations (id, store_id, name, created_at) VALUES (?, ?, ?, ?)", [locationId, storeId, "Raw warehouse", now]],
    ["INSERT INTO shop_products (id, store_id, title, description, created_at) VALUES (?, ?, ?, ?, ?)", [productId, storeId, "Raw teapot", null, now]],
    ...variants.flatMap((id, i): Array<[string, ReadonlyArray<unknown>]> => [
      [
        "INSERT INTO shop_variants (id, store_id, product_id, sku, status, price_minor, currency, version, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)",
        [id, storeId, productId, `RAW-${i}-${id.slice(0, 6)}`, "active", 1500 + i * 500, "EUR", 1, now],
      ],
      [
        "INSERT INTO shop_inventory (store_id, variant_id, location_id, on_hand, reserved, version, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
        [storeId, id, locationId, 1_000_000_000, 0, 1, now],
      ],
    ]),
  ];
  for (const [sql, params] of statements) {
    if (db.dialect === "sqlite") db.sqlite.prepare(sql).run(...params);
    else await db.pool.query(sqlFor("postgres", sql), [...params]);
  }
  return { storeId, locationId, variants, run: randomUUID().slice(0, 8) };
};

/** The statements of one checkout transaction (what the SQL adapters issue, in the same order). */
const checkoutStatements = (dialect: RawDatabase["dialect"], f: RawFixture, sequence: number): Array<[string, ReadonlyArray<unknown>]> => {
  const now = new Date().toISOString();
  const expires = new Date(Date.now() + 15 * 60_000).toISOString();
  const orderId = randomUUID();
  const prices = [1500, 2000, 2500];
  const tax = prices.map((p) => Math.round(p * 0.2));
  const total = prices.reduce((a, p) => a + p, 0) + tax.reduce((a, t) => a + t, 0);
  const event = JSON.stringify({ id: randomUUID(), type: "OrderPlaced", tenant_id: f.storeId, aggregate_id: orderId, data: { order_id: orderId, total_minor: total } });
  const statements: Array<[string, ReadonlyArray<unknown>]> = [
    [
      "INSERT INTO shop_checkout_requests (store_id, scope, idempotency_key, payload_hash, order_id, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      [f.storeId, `user:${f.run}`, `raw-${sequence}`, "0".repeat(64), orderId, now],
    ],
    ...f.variants.map((variantId): [string, ReadonlyArray<unknown>] => [
      "UPDATE shop_inventory SET reserved = reserved + ?, version = version + 1, updated_at = ? WHERE variant_id = ? AND location_id = ? AND on_hand - reserved >= ?",
      [1, now, variantId, f.locationId, 1],
    ]),
    [
      "INSERT INTO shop_orders (id, store_id, customer_id, cart_id, status, currency, subtotal_minor, discount_minor, tax_minor, total_minor, payment_intent_ref, email, shipping_address, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [orderId, f.storeId, f.run, randomUUID(), "pending", "EUR", 6000, 0, 1200, total, null, "v1.k.sealed", "v1.k.sealed", 1, now, now],
    ],
    [
      "INSERT INTO shop_order_lines (id, store_id, order_id, variant_id, sku, quantity, unit_price_minor, discount_minor, tax_minor, total_minor) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      f.variants.flatMap((variantId, i) => [randomUUID(), f.storeId, orderId, variantId, `RAW-${i}`, 1, prices[i]!, 0, tax[i]!, prices[i]! + tax[i]!]),
    ],
    [
      "INSERT INTO shop_reservations (id, store_id, order_id, variant_id, location_id, quantity, status, expires_at, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?), (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      f.variants.flatMap((variantId) => [randomUUID(), f.storeId, orderId, variantId, f.locationId, 1, "active", expires, now, now]),
    ],
    [
      "INSERT INTO shop_order_payments (order_id, store_id, merchant_id, payment_id, idempotency_key, payment_method, status, amount_minor, captured_minor, refunded_minor, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)",
      [orderId, f.storeId, randomUUID(), null, `order:${orderId}/authorize`, "pm_card_visa", "authorizing", total, 0, 0, now],
    ],
    [
      "INSERT INTO shop_order_timeline (id, store_id, order_id, kind, actor_id, detail, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)",
      [randomUUID(), f.storeId, orderId, "order.pending", `user:${f.run}`, JSON.stringify({ total_minor: total }), now],
    ],
    [
      "INSERT INTO outbox (id, tenant_id, type, event, next_attempt_at, created_at) VALUES (?, ?, ?, ?, ?, ?)",
      [randomUUID(), f.storeId, "OrderPlaced", event, now, now],
    ],
  ];
  return statements.map(([sql, params]) => [sqlFor(dialect, sql), params]);
};

/** Every checkout reserves the same SKU: contention on one stock row (no raw baseline; compare with commerce-checkout). */
export const commerceCheckoutHotSku: Scenario = {
  name: "commerce-checkout-hot-sku",
  description: "POST /v1/orders, every cart one unit of the same variant: all reservations contend for one stock row",
  setup: (target, { connections }) => checkoutPlan(target, connections, (variants) => variants.slice(0, 1)),
};

/** The public first page of a store's catalog (100 products). */
export const commerceCatalog: Scenario = {
  name: "commerce-catalog",
  description: "GET /v1/products?store_id= (public, first page of 50 of 100 products with their variants)",
  setup: async (target) => {
    const runtime = target.server.core.runtime;
    const owner = randomUUID();
    const store = await runtime.runPromise(createStore(owner, { name: "Bench catalog", currency: "EUR" }));
    for (let i = 0; i < 100; i++) {
      await runtime.runPromise(
        createProduct(owner, store.id, { title: `Teapot ${i}`, description: "cast iron", variants: [{ sku: `CAT-${i}`, priceMinor: 1000 + i }] }),
      );
    }
    return { requests: [{ method: "GET", path: `/v1/products?store_id=${store.id}&limit=50` }] };
  },
};
