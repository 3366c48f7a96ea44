/**
 * The checkout-risk read runs on every checkout, one statement for its signals (account, client
 * network, e-mail), under their locks: `CheckoutRiskRepository.riskSince` must seek each
 * signal's declines of the window through the partial index of declined rows (commerce migration
 * 29), in time order, and its checkouts in flight through the partial index of unsettled rows
 * (migration 31: a signal is settled when its payment is answered), never reading the signals of
 * other clients nor a signal's settled checkouts. Plans of the statement the repository really
 * sends, with its values: EXPLAIN QUERY PLAN on SQLite, the generic plan and a measured plan on
 * Postgres. The index of the customer's declines read that the signals replaced is dropped, no
 * read of the orders needing it.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import t from "tap";
import { makeSqlCheckoutRiskRepository } from "../../adapters/sql/commerce/SqlCheckoutRiskRepository.js";
import { openTestDatabase } from "../support/databases.js";
import { genericPlan, measuredPlan, planNodes, rowsRead, sentToPostgres } from "../support/postgresPlans.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { commerceTestModules, testSealingKey } from "./support.js";
import { makeAesGcmFieldSealer } from "../../adapters/commerce/FieldSealer.js";
import { databaseState } from "../../adapters/observability/StateCollectors.js";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { compose } from "../../hosts/Composition.js";
import { makeCommerceModule } from "../../hosts/modules/commerceModule.js";
import { paymentsModule } from "../../hosts/modules/paymentsModule.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { moduleLayer } from "../support/moduleLayer.js";

const signal = "a".repeat(64);
const since = () => new Date(Date.now() - 3_600_000);
const other = "b".repeat(64);
const nothing = [
  { declines: [], unresolved: 0 },
  { declines: [], unresolved: 0 },
];

t.test("SQLite: the signals' declines and checkouts in flight are read by seeking their partial indexes, without a sort", async (t) => {
  const db = await openTestDatabase("sqlite", t, commerceTestModules);
  const risk = makeSqlCheckoutRiskRepository(db);
  const { executed } = await capturePrepared(
    (text) => text.includes('from "shop_checkout_risk_signals"'),
    async () => t.same(await Effect.runPromise(risk.riskSince([signal, other], since(), 5)), nothing, "nothing yet"),
  );
  t.equal(executed.size, 1, "the read ran one statement");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(
      details.some((detail) => /^SEARCH shop_checkout_risk_signals USING (COVERING )?INDEX shop_checkout_risk_declines \(signal=\? AND declined_at>\?\)/.test(detail)),
      `seeks the declines by signal and time: ${details.join(" | ")}`,
    );
    t.ok(
      details.some((detail) => /^SEARCH shop_checkout_risk_signals USING (COVERING )?INDEX shop_checkout_risk_unsettled \(signal=\? AND recorded_at>\?\)/.test(detail)),
      `seeks the unsettled checkouts by signal and time: ${details.join(" | ")}`,
    );
    t.notOk(details.some((detail) => detail.includes("TEMP B-TREE")), "no sort: the index gives the time order");
  }
});

t.test("Postgres: the signals' declines and checkouts in flight are read through their partial indexes in its generic plan", async (t) => {
  const db = await openTestDatabase("postgres", t, commerceTestModules);
  const risk = makeSqlCheckoutRiskRepository(db);
  const sent = await sentToPostgres(
    (text) => text.includes('from "shop_checkout_risk_signals"'),
    async () => t.same(await Effect.runPromise(risk.riskSince([signal, other], since(), 5)), nothing, "nothing yet"),
  );
  t.equal(sent.length, 1, "the read sent one statement");
  const nodes = planNodes(await genericPlan(db, sent[0]!));
  const scans = nodes.filter((node) => node["Relation Name"] === "shop_checkout_risk_signals");
  t.same(
    scans.map((scan) => scan["Index Name"]).sort(),
    ["shop_checkout_risk_declines", "shop_checkout_risk_declines", "shop_checkout_risk_unsettled", "shop_checkout_risk_unsettled"],
    `each signal's two branches by their partial indexes (${scans.map((scan) => String(scan["Node Type"])).join(", ")})`,
  );
  t.notOk(nodes.some((node) => node["Node Type"] === "Sort"), "no sort: the index gives the time order");
});

t.test("Postgres: the in-flight count reads only unsettled checkouts, however many settled checkouts the signal had within the hour", async (t) => {
  const db = await openTestDatabase("postgres", t, commerceTestModules);
  const risk = makeSqlCheckoutRiskRepository(db);
  const settledCount = 2000;
  const inFlight = 3;
  // A busy shared network's hour: 2,000 checkouts whose payment was answered and 3 still
  // authorizing; beside it 100 other networks' day, 80 answered checkouts and one in flight each.
  // Seeded without the foreign-key triggers (no orders behind them), then the answers are recorded
  // as checkout records them, by a move of the payment's status (which settles the signals).
  await db.db.connection().execute(async (connection) => {
    await sql`SET session_replication_role = replica`.execute(connection);
    await sql`INSERT INTO shop_checkout_risk_signals (order_id, signal, recorded_at, declined_at)
      SELECT 'busy-' || i, ${signal}, now() - i * interval '1 second', NULL::timestamptz FROM generate_series(1, ${settledCount + inFlight}) AS i
      UNION ALL
      SELECT 'other-' || i, lpad(to_hex(i % 100), 64, 'b'), now() - i * interval '10 seconds', NULL::timestamptz FROM generate_series(1, 8100) AS i`.execute(connection);
    await sql`INSERT INTO shop_order_payments (order_id, store_id, merchant_id, payment_id, idempotency_key, payment_method, status, amount_minor, captured_minor, refunded_minor, updated_at)
      SELECT order_id, 'store-1', 'merchant-1', NULL, 'order:' || order_id || '/authorize', 'pm_card_visa', 'authorizing', 1000, 0, 0, now()
      FROM shop_checkout_risk_signals`.execute(connection);
    await sql`RESET session_replication_role`.execute(connection);
  });
  await sql`ANALYZE shop_checkout_risk_signals, shop_order_payments`.execute(db.db);
  const answered = await sql`UPDATE shop_order_payments SET status = 'authorized', updated_at = now()
    WHERE order_id NOT IN ('busy-1', 'busy-2', 'busy-3') AND order_id NOT LIKE 'other-_' AND order_id NOT LIKE 'other-__'
      AND order_id NOT IN ('other-100')`.execute(db.db);
  t.equal(Number(answered.numAffectedRows), settledCount + 8000, "the answers recorded");
  await sql`ANALYZE shop_checkout_risk_signals, shop_order_payments`.execute(db.db);
  const sent = await sentToPostgres(
    (text) => text.includes('from "shop_checkout_risk_signals"'),
    async () => t.same(await Effect.runPromise(risk.riskSince([signal], since(), 5)), [{ declines: [], unresolved: inFlight }], "three in flight"),
  );
  t.equal(sent.length, 1, "the read sent one statement");
  const plan = await measuredPlan(db, sent[0]!);
  // Rows read of the signals and of the payments (which told, before settled_at, whether a checkout was in flight).
  const read = rowsRead(plan, "shop_checkout_risk_signals") + rowsRead(plan, "shop_order_payments");
  t.ok(read <= inFlight, `${read} rows read for ${inFlight} checkouts in flight, beside ${settledCount} settled ones`, { nodes: planNodes(plan) });
});

/**
 * `shop_orders_customer_declines` (commerce migration 5) served the customer's declines read that
 * the signal rows replaced. Every read of `shop_orders` (a customer's orders, a page on, the guest
 * orders retention minimizes, the gauges' count by status; by id is the primary key) is planned
 * with a store's orders and statistics: each keeps an index of its own, and the old index is gone
 * (commerce migration 32). Before, Postgres's plan for a customer's first page took it, then sorted
 * by id; `shop_orders_customer (customer_id, id)` serves that page in order.
 */
const orderReads = async (db: SqlDatabase) => {
  const f = featuresFor(db);
  const sealingKeys = { currentKeyId: "k1", keys: { k1: testSealingKey } };
  const layer = moduleLayer(db, compose().add(paymentsModule).add(makeCommerceModule({ mailer: { send: () => Effect.dieMessage("no mail here") }, sealingKeys })));
  const address = makeAesGcmFieldSealer(sealingKeys).seal(JSON.stringify({ name: "Ada", line1: "1 St", line2: null, city: "London", postcode: "N1", country: "GB" }));
  const orders = await Effect.runPromise(Effect.provide(OrdersRepository, layer));
  const now = new Date();
  const time = (ms: number) => f.timeToDb(new Date(now.getTime() - ms));
  // One store's 4,000 orders: 400 customers' (ten each) and guests' (one in four), of every status.
  const statuses = ["pending", "payment_pending", "confirmed", "failed", "expired", "cancelled", "dispatched"];
  await db.db.insertInto("shop_stores").values({ id: "store-1", name: "Shop", currency: "EUR", owner_id: "owner-1", merchant_id: "merchant-1", tax_rate_basis_points: 0, created_at: time(0) }).execute();
  for (let batch = 0; batch < 4; batch++) {
    await db.db
      .insertInto("shop_orders")
      .values(
        Array.from({ length: 1000 }, (_, j) => {
          const i = batch * 1000 + j;
          return {
            id: `order-${String(i).padStart(5, "0")}`,
            store_id: "store-1",
            customer_id: i % 4 === 0 ? null : `customer-${i % 400}`,
            cart_id: `cart-${i}`,
            status: statuses[i % statuses.length]!,
            currency: "EUR",
            subtotal_minor: 100,
            discount_minor: 0,
            tax_minor: 0,
            total_minor: 100,
            payment_intent_ref: null,
            email: null,
            shipping_address: address,
            version: 1,
            created_at: time(i * 60_000),
            updated_at: time(i * 60_000),
          };
        }),
      )
      .execute();
  }
  await sql`ANALYZE`.execute(db.db);
  const run = (effect: Effect.Effect<unknown>) => Effect.runPromise(effect);
  return [
    { read: "a customer's orders", expected: "shop_orders_customer", run: () => run(orders.ordersOfCustomer("customer-7", null, 51)) },
    { read: "a customer's orders, a page on", expected: "shop_orders_customer", run: () => run(orders.ordersOfCustomer("customer-7", "order-03000", 51)) },
    { read: "the guest orders retention minimizes", expected: "shop_orders_guests_to_minimize", run: () => run(orders.redactGuestOrders(new Date(now.getTime() - 30 * 86_400_000), 100, now)) },
    { read: "the gauges' count by status", expected: "shop_orders_status", run: () => databaseState(db, { payments: false, commerce: true })() },
  ];
};

t.test("SQLite: no read of shop_orders uses shop_orders_customer_declines, which is dropped; each read keeps its own index", async (t) => {
  const db = await openTestDatabase("sqlite", t, commerceTestModules);
  for (const { read, expected, run } of await orderReads(db)) {
    const { executed } = await capturePrepared((text) => text.includes('from "shop_orders"'), run);
    t.ok(executed.size >= 1, `${read}: ran`);
    for (const [text, parameters] of executed) {
      const details = (await planDetails(db, text, parameters)).filter((detail) => detail.includes("shop_orders"));
      t.ok(details.some((detail) => detail.includes(`INDEX ${expected} `)), `${read}: ${details.join(" | ")}`);
      t.notOk(details.some((detail) => detail.includes("shop_orders_customer_declines")), `${read}: not through shop_orders_customer_declines`);
    }
  }
  const { rows } = await sql<{ name: string }>`SELECT name FROM sqlite_master WHERE type = 'index' AND name = 'shop_orders_customer_declines'`.execute(db.db);
  t.same(rows, [], "shop_orders_customer_declines is dropped");
});

t.test("Postgres: no read of shop_orders uses shop_orders_customer_declines, which is dropped; each read keeps its own index", async (t) => {
  const db = await openTestDatabase("postgres", t, commerceTestModules);
  for (const { read, expected, run } of await orderReads(db)) {
    const sent = await sentToPostgres((text) => text.includes('from "shop_orders"'), run);
    t.ok(sent.length >= 1, `${read}: sent`);
    for (const statement of sent) {
      for (const [kind, plan] of [["generic", await genericPlan(db, statement)], ["measured", await measuredPlan(db, statement)]] as const) {
        // The statement reads shop_orders alone: every index of its plan is one of that table's.
        const indexes = planNodes(plan).flatMap((node) => (typeof node["Index Name"] === "string" ? [node["Index Name"]] : []));
        t.ok(indexes.includes(expected), `${read} (${kind} plan): ${indexes.join(", ")}`);
        t.notOk(indexes.includes("shop_orders_customer_declines"), `${read} (${kind} plan): not through shop_orders_customer_declines`);
      }
    }
  }
  const { rows } = await sql<{ indexname: string }>`SELECT indexname FROM pg_indexes WHERE indexname = 'shop_orders_customer_declines'`.execute(db.db);
  t.same(rows, [], "shop_orders_customer_declines is dropped");
});
