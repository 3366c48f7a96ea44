/**
 * Return stages are kept by the database too (spec, E-commerce States: "return stages
 * (authorization issued, received and inspected, restocked or quarantined, refund requested,
 * closed)"): a return moves only forward along them, what it returns and refunds never changes,
 * and it is never deleted, whatever writes around the code's conditional updates.
 */
import t from "tap";
import { dispatchShipment } from "../../core/commerce/Fulfillment.js";
import { getOrder } from "../../core/commerce/OrderQueries.js";
import { advanceReturn, createReturn } from "../../core/commerce/Returns.js";
import { forEachCommerceDialect } from "./support.js";
import { commerceRuntime, confirmedOrder, seedStore } from "./support.js";

const refused = async (t: { ok: (v: unknown, m: string) => void }, what: string, run: () => Promise<unknown>) => {
  const outcome = await run().then(
    () => "accepted",
    () => "refused",
  );
  t.ok(outcome === "refused", `the database refuses ${what}`);
};

t.test("return stages move only forward, also in the database: a return's lines, refund and order never change and it is never deleted", (t) =>
  forEachCommerceDialect(t, "return stages", async (t, db) => {
    const c = commerceRuntime(t, db);
    const { ownerId, store, location, variant } = await seedStore(c, { stock: 5 });
    const { shopper, placed } = await confirmedOrder(c, store.id, variant.id, 2);
    const orderId = placed.order.id;
    await c.run(dispatchShipment(ownerId, orderId, { locationId: location.id, carrier: "DHL", trackingNumber: `RS-${orderId}` }));
    const lineId = (await c.run(getOrder(shopper, orderId))).lines[0]!.id;
    const ret = await c.run(createReturn(shopper, { orderId, lines: [{ orderLineId: lineId, quantity: 1 }], reason: "broken" }));
    const q = db.db;
    const row = () => q.updateTable("shop_returns").where("id", "=", ret.id);

    await refused(t, "authorized → closed (stages skipped)", () => row().set({ status: "closed" }).execute());
    await refused(t, "authorized → refund_requested", () => row().set({ status: "refund_requested" }).execute());
    await refused(t, "a change of the refund", () => row().set({ refund_minor: 999_999 }).execute());
    await refused(t, "a change of the lines returned", () => row().set({ lines: JSON.stringify([{ orderLineId: lineId, quantity: 2 }]) }).execute());
    await refused(t, "a change of the order", () => row().set({ order_id: "other" }).execute());
    await refused(t, "a DELETE", () => q.deleteFrom("shop_returns").where("id", "=", ret.id).execute());

    const warehouse = { kind: "staff" as const, userId: ownerId, role: "warehouse_operator" as const };
    await c.run(advanceReturn(warehouse, ret.id, { to: "received", reason: "in" }));
    await c.run(advanceReturn(warehouse, ret.id, { to: "quarantined", reason: "chipped" }));
    await refused(t, "quarantined → restocked (units counted back after all)", () => row().set({ status: "restocked" }).execute());
    await refused(t, "quarantined → authorized", () => row().set({ status: "authorized" }).execute());
    const kept = await q.selectFrom("shop_returns").select(["status", "refund_minor"]).where("id", "=", ret.id).executeTakeFirstOrThrow();
    t.same([kept.status, Number(kept.refund_minor)], ["quarantined", ret.refundMinor], "the return is as the code left it");
  }),
);
