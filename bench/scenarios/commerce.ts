/**
 * E-commerce under load. `commerce-checkout`: POST /v1/orders for a cart of three lines with the
 * sandbox's succeeding card, each request its own cart and Idempotency-Key (HTTP idempotency
 * reserve; in one transaction the checkout record, cart checked out, server-side price, three
 * conditional stock reservations, order, lines, reservations, payment record, timeline, expiry
 * job and outbox row; then the in-process authorization outside it and the confirm transaction).
 * Its raw baseline runs every statement a checkout runs through the stack, in the same
 * transactions, on the bare driver: the reads before (epoch, idempotency reservation, cart, risk
 * check, store), the checkout transaction, the in-process payment's (merchant, the intent's
 * creation with its gateway key, the confirmation's key, its two transactions and answer), the
 * transaction that confirms the order, and the idempotency answer. Until the eighth session it
 * was the checkout transaction alone, with the lines and reservations as multi-row inserts.
 * `commerce-catalog`: GET /v1/products, the public first page of a store's catalog.
 */
import { createHash, randomUUID } from "node:crypto";
import { Effect } from "effect";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { createCart, setCartLine } from "../../core/commerce/Carts.js";
import { createProduct } from "../../core/commerce/Catalog.js";
import { createLocation, createStore } from "../../core/commerce/CreateStore.js";
import { adjustStock } from "../../core/commerce/Inventory.js";
import type { RawDatabase } from "../RawDatabase.js";
import { inOrder, kernelSql, numbered, rawRunner, reserveKeyParams, type RawStatement } from "../RawStatements.js";
import { confirmSql } from "./paymentsFixtures.js";
import { measureOps } from "../RawLoop.js";
import type { BenchRequest, BenchTarget, LoadPlan, Scenario } from "../Scenario.js";
import type { VariantId } from "../../core/commerce/model/Ids.js";

/**
 * Carts per HTTP connection, enough for a 5 s run and its 5 s warm-up at 400 checkouts per second; past
 * them the plan wraps around and repeated checkouts are idempotent replays (reported 2xx), so
 * raise this for long runs.
 */
const cartsPerConnection = 400;

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
): Promise<LoadPlan> => {
  const runtime = target.server.core.runtime;
  const { store, variants } = await benchStore(target);
  // Each customer checks out from an address and an e-mail of its own (198.18.0.0/15 is the
  // benchmarking range; the bench target trusts one proxy): checkout risk counts per account,
  // network and e-mail, and one shared network would make the run measure its refusals.
  const customers = await Promise.all(
    Array.from({ length: connections }, async (_, i) => {
      const id = randomUUID();
      return { id, address: `198.18.${Math.floor(i / 250)}.${(i % 250) + 1}`, email: `bench-${i}@example.com`, token: await mintToken({ secret: target.jwtSecret, userId: id, ttlSeconds: 3600 }) };
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
      headers: { authorization: `Bearer ${customer.token}`, "content-type": "application/json", "idempotency-key": `bench-${cartId}`, "x-forwarded-for": customer.address },
      body: JSON.stringify({ cart_id: cartId, payment_method: "pm_card_visa", shipping_address: address, email: customer.email }),
    });
  }
  return { requests, consumable: true };
};

/** Checkout of a three-line cart, against every statement a checkout runs. */
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
    const toDb = (at: Date): unknown => (db.dialect === "sqlite" ? at.toISOString() : at);
    const runner = rawRunner(db);
    const measured = await measureOps((sequence) => {
      const c = rawCheckout(db.dialect, fixture, sequence, toDb);
      return inOrder([
        () => runner.autocommit(c.before),
        () => runner.inTransaction(c.checkout),
        () => runner.autocommit(c.merchant),
        () => runner.inTransaction(c.createIntent),
        () => runner.autocommit(c.confirmKey),
        () => runner.inTransaction(c.confirmStep1),
        () => runner.inTransaction(c.confirmStep3),
        () => runner.autocommit(c.confirmAnswer),
        () => runner.inTransaction(c.confirmOrder),
        () => runner.autocommit(c.answer),
      ]);
    }, bounds).finally(restore);
    return { ...measured, label: rawLabel };
  },
};

const rawLabel =
  "every statement of a checkout: epoch, idempotency reservation, cart, store; the checkout transaction (record, risk locks and counts, cart, lines, stock and prices, 3 reservations, order, 3 lines, 3 reservations, payment record, timeline, risk signals, 2 jobs, outbox); the payment's merchant, intent creation, confirmation key, its two transactions and answer; the order's confirmation; the idempotency answer";

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
  /** A payment merchant the HTTP run provisioned (the raw intents need a real one). */
  readonly merchantId: string;
  /** A cart of the three variants the checkout reads (and, once, checks out). */
  readonly cartId: string;
  /**
   * The envelopes of an OrderPlaced and an OrderConfirmed the HTTP run wrote, for the raw outbox
   * rows: the relay then delivers them as the stack's (its consumers find them done), instead of
   * failing on made-up events and retrying them through the scenarios that follow.
   */
  readonly events: Readonly<Record<"OrderPlaced" | "OrderConfirmed", string>>;
}

/** A store, location, product and three variants with stock, written with the bare driver. */
const rawFixture = async (db: RawDatabase): Promise<RawFixture> => {
  const now = new Date().toISOString();
  const storeId = randomUUID();
  const locationId = randomUUID();
  const productId = randomUUID();
  const variants = [randomUUID(), randomUUID(), randomUUID()];
  const cartId = randomUUID();
  const customerId = randomUUID();
  const merchant =
    db.dialect === "sqlite"
      ? (db.sqlite.prepare(`select "id" from "payment_merchants" order by "created_at" desc limit 1`).get() as { id: string } | undefined)
      : (await db.pool.query<{ id: string }>(`select "id" from "payment_merchants" order by "created_at" desc limit 1`)).rows[0];
  if (merchant === undefined) throw new Error("raw checkout: run after the scenario's setup (a payment merchant)");
  const eventOf = async (type: "OrderPlaced" | "OrderConfirmed"): Promise<string> => {
    const text = `select "event" from "outbox" where "type" = ${db.dialect === "sqlite" ? "?" : "$1"} order by "seq" desc limit 1`;
    const row =
      db.dialect === "sqlite" ? (db.sqlite.prepare(text).get(type) as { event: unknown } | undefined) : (await db.pool.query<{ event: unknown }>(text, [type])).rows[0];
    if (row === undefined) throw new Error(`raw checkout: run after the scenario's load (an ${type} event)`);
    return typeof row.event === "string" ? row.event : JSON.stringify(row.event);
  };
  const events = { OrderPlaced: await eventOf("OrderPlaced"), OrderConfirmed: await eventOf("OrderConfirmed") };
  const statements: Array<[string, ReadonlyArray<unknown>]> = [
    ["INSERT INTO shop_stores (id, name, currency, owner_id, merchant_id, tax_rate_basis_points, created_at) VALUES (?, ?, ?, ?, ?, ?, ?)", [storeId, "Raw shop", "EUR", randomUUID(), merchant.id, 2000, now]],
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
    ["INSERT INTO shop_carts (id, store_id, customer_id, token_hash, status, version, created_at, updated_at) VALUES (?, ?, ?, ?, ?, ?, ?, ?)", [cartId, storeId, customerId, null, "open", 1, now, now]],
    ...variants.map((id): [string, ReadonlyArray<unknown>] => ["INSERT INTO shop_cart_lines (store_id, cart_id, variant_id, quantity, added_at) VALUES (?, ?, ?, ?, ?)", [storeId, cartId, id, 1, now]]),
  ];
  for (const [sql, params] of statements) {
    if (db.dialect === "sqlite") db.sqlite.prepare(sql).run(...params);
    else await db.pool.query(numbered("postgres", sql), [...params]);
  }
  return { storeId, locationId, variants, run: customerId, merchantId: merchant.id, cartId, events };
};

/** One raw checkout: what a checkout runs through the stack, in its groups (autocommit or one transaction each). */
interface RawCheckout {
  readonly before: ReadonlyArray<RawStatement>;
  readonly checkout: ReadonlyArray<RawStatement>;
  readonly merchant: ReadonlyArray<RawStatement>;
  readonly createIntent: ReadonlyArray<RawStatement>;
  readonly confirmKey: ReadonlyArray<RawStatement>;
  readonly confirmStep1: ReadonlyArray<RawStatement>;
  readonly confirmStep3: ReadonlyArray<RawStatement>;
  readonly confirmAnswer: ReadonlyArray<RawStatement>;
  readonly confirmOrder: ReadonlyArray<RawStatement>;
  readonly answer: ReadonlyArray<RawStatement>;
}

/**
 * The statements of checkout number `sequence` (as the adapters compile them, captured from the
 * server under this load, in the same order and groups): the fixture's cart is read every time and
 * checked out once (later updates match no row, as a replayed cart's would).
 */
const rawCheckout = (dialect: RawDatabase["dialect"], f: RawFixture, sequence: number, toDb: (at: Date) => unknown): RawCheckout => {
  const q = (text: string) => numbered(dialect, text);
  const kernel = kernelSql(dialect);
  const pay = confirmSql(dialect);
  const at = new Date();
  const now = toDb(at);
  const expires = toDb(new Date(at.getTime() + 15 * 60_000));
  const orderId = randomUUID();
  const intentId = randomUUID();
  const userScope = `user:${f.run}`;
  const httpKey = `raw-${sequence}-${randomUUID()}`;
  const gatewayScope = `merchant:${f.merchantId}/gateway`;
  const orderKey = `order:${orderId}/authorize`;
  const prices = [1500, 2000, 2500];
  const tax = prices.map((p) => Math.round(p * 0.2));
  const total = prices.reduce((a, p) => a + p, 0) + tax.reduce((a, t) => a + t, 0);
  const timeline = (kind: string): RawStatement => [
    q(`insert into "shop_order_timeline" ("id", "store_id", "order_id", "kind", "actor_id", "detail", "created_at") values (?, ?, ?, ?, ?, ?, ?)`),
    [randomUUID(), f.storeId, orderId, kind, userScope, JSON.stringify({ total_minor: total }), now],
  ];
  const outbox = (type: "OrderPlaced" | "OrderConfirmed"): RawStatement => [kernel.outbox, [randomUUID(), f.storeId, type, f.events[type], "pending", 0, now, now]];
  const job = (kind: string, key: string): RawStatement => [kernel.job, [randomUUID(), kind, key, JSON.stringify({ orderId }), "pending", 0, 16, expires, now, now]];
  const audit = (action: string): RawStatement => [pay.audit, [randomUUID(), f.merchantId, "gateway:commerce", action, "payment_intent", intentId, "merchant request", "{}", now]];
  const intent = (status: string, capturable: number, attempts: number, version: number): unknown[] => [
    total, "EUR", "manual", status, capturable, 0, 0, "pm_card_visa", capturable > 0 ? `sbx_pay_${sequence}` : null, null, attempts, version + 1, now, intentId, version,
  ];
  const attemptId = randomUUID();
  // Three signal digests (64 hex), sorted as the stack locks them.
  const riskSignals = ["account", "network", "email"].map((kind) => createHash("sha256").update(`${kind}:${f.run}`).digest("hex")).sort();
  const hourAgo = toDb(new Date(at.getTime() - 3_600_000));
  return {
    before: [
      [kernel.epoch, [f.run]],
      [kernel.reserveKey, reserveKeyParams(userScope, httpKey, at, toDb)],
      [q(`select * from "shop_carts" where "id" = ?`), [f.cartId]],
      [q(`select * from "shop_stores" where "id" = ?`), [f.storeId]],
    ],
    checkout: [
      [
        q(`insert into "shop_checkout_requests" ("store_id", "scope", "idempotency_key", "payload_hash", "order_id", "created_at") values (?, ?, ?, ?, ?, ?) on conflict ("scope", "idempotency_key") do nothing`),
        [f.storeId, userScope, httpKey, "0".repeat(64), orderId, now],
      ],
      // Checkout risk: a lock row per signal (account, network, e-mail), then their declines and
      // unsettled checkouts in the hour, under the locks (core/commerce/CheckoutRisk.ts; the
      // payment's answer settles them by trigger, commerce migration 31).
      [
        q(`insert into "shop_checkout_risk_locks" ("signal", "locked_at") values (?, ?), (?, ?), (?, ?) on conflict ("signal") do update set "locked_at" = excluded.locked_at`),
        riskSignals.flatMap((signal) => [signal, now]),
      ],
      [
        q(
          riskSignals
            .map(
              (_, i) =>
                `select ${i} as "place", "at", 0 as "unresolved" from (select "declined_at" as "at" from "shop_checkout_risk_signals" where "signal" = ? and "declined_at" is not null and "declined_at" >= ? order by "declined_at" limit ?) as "declines${i}" union all ` +
                `select ${i} as "place", "at", 1 as "unresolved" from (select "recorded_at" as "at" from "shop_checkout_risk_signals" where "signal" = ? and "settled_at" is null and "declined_at" is null and "recorded_at" >= ? limit ?) as "unresolved${i}"`,
            )
            .join(" union all "),
        ),
        riskSignals.flatMap((signal) => [signal, hourAgo, 5, signal, hourAgo, 5]),
      ],
      [q(`update "shop_carts" set "status" = ?, "version" = "version" + ?, "updated_at" = ? where "id" = ? and "status" = ?`), ["checked_out", 1, now, f.cartId, "open"]],
      [q(`select * from "shop_cart_lines" where "cart_id" = ? order by "added_at", "variant_id"`), [f.cartId]],
      [q(`select * from "shop_inventory" where "variant_id" in (?, ?, ?) order by "location_id"`), [...f.variants]],
      [q(`select * from "shop_variants" where "id" in (?, ?, ?)`), [...f.variants]],
      [q(`select * from "shop_promotions" where "store_id" = ? and "automatic" = ? order by "id"`), [f.storeId, dialect === "sqlite" ? 1 : true]],
      ...f.variants.map((variantId): RawStatement => [
        q(`update "shop_inventory" set "reserved" = "reserved" + ?, "version" = "version" + ?, "updated_at" = ? where "variant_id" = ? and "location_id" = ? and "on_hand" - "reserved" >= ?`),
        [1, 1, now, variantId, f.locationId, 1],
      ]),
      [
        q(`insert into "shop_orders" ("id", "store_id", "customer_id", "cart_id", "status", "currency", "subtotal_minor", "discount_minor", "tax_minor", "total_minor", "payment_intent_ref", "email", "shipping_address", "version", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
        [orderId, f.storeId, f.run, f.cartId, "pending", "EUR", 6000, 0, 1200, total, null, "v1.k.sealed", "v1.k.sealed", 1, now, now],
      ],
      ...f.variants.map((variantId, i): RawStatement => [
        q(`insert into "shop_order_lines" ("id", "store_id", "order_id", "variant_id", "sku", "quantity", "unit_price_minor", "discount_minor", "tax_minor", "total_minor") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
        [randomUUID(), f.storeId, orderId, variantId, `RAW-${i}`, 1, prices[i]!, 0, tax[i]!, prices[i]! + tax[i]!],
      ]),
      ...f.variants.map((variantId): RawStatement => [
        q(`insert into "shop_reservations" ("id", "store_id", "order_id", "variant_id", "location_id", "quantity", "status", "expires_at", "created_at", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
        [randomUUID(), f.storeId, orderId, variantId, f.locationId, 1, "active", expires, now, now],
      ]),
      [
        q(`insert into "shop_checkout_risk_signals" ("order_id", "signal", "recorded_at", "declined_at") values (?, ?, ?, ?), (?, ?, ?, ?), (?, ?, ?, ?) on conflict ("order_id", "signal") do nothing`),
        riskSignals.flatMap((signal) => [orderId, signal, now, null]),
      ],
      [
        q(`insert into "shop_order_payments" ("order_id", "store_id", "merchant_id", "payment_id", "idempotency_key", "payment_method", "status", "amount_minor", "captured_minor", "refunded_minor", "updated_at") values (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)`),
        [orderId, f.storeId, f.merchantId, null, orderKey, "pm_card_visa", "authorizing", total, 0, 0, now],
      ],
      timeline("order.pending"),
      job("commerce.expire-reservations", `order:${orderId}`),
      job("commerce.resolve-order-payment", `order:${orderId}`),
      outbox("OrderPlaced"),
    ],
    merchant: [[q(`select * from "payment_merchants" where "id" = ?`), [f.merchantId]]],
    createIntent: [
      [kernel.reserveKey, reserveKeyParams(gatewayScope, `${orderKey}/create`, at, toDb)],
      ["SAVEPOINT dk_savepoint_1", []],
      [pay.insertIntent, [intentId, f.merchantId, total, "EUR", "manual", "requires_confirmation", 0, 0, 0, "pm_card_visa", null, 0, null, 1, now, now]],
      audit("payment_intent.created"),
      ["RELEASE SAVEPOINT dk_savepoint_1", []],
      [kernel.completeKey, ["completed", JSON.stringify({ status: 201, body: { id: intentId, status: "requires_confirmation" } }), gatewayScope, `${orderKey}/create`, "in_progress"]],
    ],
    confirmKey: [[kernel.reserveKey, reserveKeyParams(gatewayScope, `${orderKey}/confirm`, at, toDb)]],
    confirmStep1: [
      [pay.lockIntent, [intentId]],
      [pay.insertAttempt, [attemptId, intentId, f.merchantId, 1, `pi_${intentId}_attempt_1`, "pm_card_visa", "pending", null, null, now, now]],
      [pay.updateIntent, intent("processing", 0, 1, 1)],
      audit("payment_intent.confirm_started"),
    ],
    confirmStep3: [
      [pay.lockIntent, [intentId]],
      [pay.selectAttempt, [intentId, 1]],
      [pay.updateAttempt, ["authorized", `sbx_pay_${sequence}`, null, now, attemptId]],
      [pay.updateIntent, intent("requires_capture", total, 1, 2)],
      audit("payment_intent.authorized"),
    ],
    confirmAnswer: [[kernel.completeKey, ["completed", JSON.stringify({ status: 200, body: { id: intentId, status: "requires_capture" } }), gatewayScope, `${orderKey}/confirm`, "in_progress"]]],
    confirmOrder: [
      [q(`update "shop_orders" set "status" = ?, "version" = "version" + ?, "updated_at" = ?, "payment_intent_ref" = ? where "id" = ? and "status" in (?, ?) returning *`), ["confirmed", 1, now, intentId, orderId, "pending", "payment_pending"]],
      [
        q(`update "shop_order_payments" set "store_id" = ?, "merchant_id" = ?, "payment_id" = ?, "idempotency_key" = ?, "payment_method" = ?, "status" = ?, "amount_minor" = ?, "captured_minor" = ?, "refunded_minor" = ?, "updated_at" = ? where "order_id" = ?`),
        [f.storeId, f.merchantId, intentId, orderKey, "pm_card_visa", "authorized", total, 0, 0, now, orderId],
      ],
      [q(`update "shop_reservations" set "status" = ?, "updated_at" = ? where "order_id" = ? and "status" in (?)`), ["committed", now, orderId, "active"]],
      timeline("order.confirmed"),
      outbox("OrderConfirmed"),
    ],
    answer: [[kernel.completeKey, ["completed", JSON.stringify({ status: 201, body: { id: orderId, status: "confirmed", total_minor: total } }), userScope, httpKey, "in_progress"]]],
  };
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
