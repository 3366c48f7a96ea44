/**
 * The checkout-risk read runs on every checkout: a customer's failed orders of the last hour
 * (`OrdersRepository.declinedCheckoutsSince`). On SQLite it must seek that customer's failed
 * orders by index, in time order: before commerce migration 5 it read every failed order of
 * every customer through `shop_orders_status` and sorted them. The plan of the statement the
 * repository really prepares is read with EXPLAIN QUERY PLAN, with the values it binds.
 */
import { Effect } from "effect";
import t from "tap";
import { makeAesGcmFieldSealer } from "../../adapters/commerce/FieldSealer.js";
import { makeSqlOrdersRepository } from "../../adapters/sql/commerce/SqlOrdersRepository.js";
import { openTestDatabase } from "../support/databases.js";
import { capturePrepared, planDetails } from "../support/sqlitePlans.js";
import { commerceTestModules, testSealingKey } from "./support.js";

t.test("SQLite: the checkout-risk read seeks one customer's failed orders by index, in time order, without a sort", async (t) => {
  const db = await openTestDatabase("sqlite", t, commerceTestModules);
  const orders = makeSqlOrdersRepository(db, makeAesGcmFieldSealer({ currentKeyId: "k1", keys: { k1: testSealingKey } }));
  const { executed } = await capturePrepared(
    (text) => text.includes('from "shop_orders"'),
    async () => {
      const declines = await Effect.runPromise(orders.declinedCheckoutsSince("customer-1", new Date(Date.now() - 3_600_000), 5));
      t.same(declines, [], "no declines yet");
    },
  );
  t.equal(executed.size, 1, "the read ran one statement");
  for (const [text, parameters] of executed) {
    const details = await planDetails(db, text, parameters);
    t.ok(
      details.some((detail) => /^SEARCH shop_orders USING (COVERING )?INDEX shop_orders_customer_declines \(customer_id=\? AND status=\? AND updated_at>\?\)/.test(detail)),
      `seeks customer, status and time by index: ${details.join(" | ")}`,
    );
    t.notOk(details.some((detail) => detail.includes("TEMP B-TREE")), "no sort: the index gives the time order");
  }
});
