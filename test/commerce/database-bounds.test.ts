/**
 * What checkout, returns and the catalog rely on is kept by the database too (spec, E-commerce:
 * "Order creation stores an idempotency record holding key, payload hash, status and prior
 * response"; line-level returns; conventions, Limits). A checkout's idempotency record never
 * changes or goes (a rewritten one would replay another order); a line's returned units never go
 * down (the units could be returned and refunded again); a description stays within 5000 characters.
 */
import t from "tap";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { createReturn } from "../../core/commerce/Returns.js";
import { forEachCommerceDialect } from "./support.js";
import { commerceRuntime, confirmedOrder, seedStore } from "./support.js";

const refused = async (t: { ok: (v: unknown, m: string) => void }, what: string, run: () => Promise<unknown>) => {
  const outcome = await run().then(
    () => "accepted",
    () => "refused",
  );
  t.ok(outcome === "refused", `the database refuses ${what}`);
};

t.test("a checkout's idempotency record never changes, a line's returned units never go down, a description stays within 5000 characters (in the database)", (t) =>
  forEachCommerceDialect(t, "database bounds", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant, product } = await seedStore(c, { stock: 5 });
    const { shopper, placed } = await confirmedOrder(c, store.id, variant.id, 2);
    const orderId = placed.order.id;
    const q = db.db;

    await refused(t, "a checkout record pointed at another order", () => q.updateTable("shop_checkout_requests").set({ payload_hash: "other" }).where("order_id", "=", orderId).execute());
    await refused(t, "a checkout record DELETE", () => q.deleteFrom("shop_checkout_requests").where("order_id", "=", orderId).execute());

    await c.run(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `DB-${orderId}` }));
    const lineId = (await c.run(getOrder(shopper, orderId))).lines[0]!.id;
    await c.run(createReturn(shopper, { orderId, lines: [{ orderLineId: lineId, quantity: 2 }], reason: "both broken" }));
    await refused(t, "returned units going down", () => q.updateTable("shop_order_line_returns").set({ returned_quantity: 0 }).where("order_line_id", "=", lineId).execute());
    await refused(t, "a change of the line's quantity", () => q.updateTable("shop_order_line_returns").set({ line_quantity: 5 }).where("order_line_id", "=", lineId).execute());
    await refused(t, "a returned-units DELETE", () => q.deleteFrom("shop_order_line_returns").where("order_line_id", "=", lineId).execute());

    await refused(t, "a description of 5001 characters", () => q.updateTable("shop_products").set({ description: "d".repeat(5001) }).where("id", "=", product.id).execute());
    const kept = await q.selectFrom("shop_order_line_returns").select(["returned_quantity"]).where("order_line_id", "=", lineId).executeTakeFirstOrThrow();
    t.equal(Number(kept.returned_quantity), 2, "the line's returned units are as the return left them");
  }),
);
