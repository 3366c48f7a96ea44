/**
 * Issue rule 4: orders, order lines, settlement entries, payables and the delivery status history are
 * immutable — the database itself refuses UPDATE and DELETE — and a correction is a linked
 * reversal with actor and reason.
 */
import t from "tap";
import { Effect } from "effect";
import { reverseSettlement } from "../../core/delivery/ReverseSettlement.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { Payables } from "../../ports/delivery/Payables.js";
import { Ids } from "../../ports/Ids.js";
import { payablesOf } from "../../core/delivery/SettlePayouts.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { openTestDatabase } from "../support/databases.js";
import { deliveryRuntime, deliveryTestModules, forEachDeliveryDialect, openRestaurant, pickedUpOrder, advanceDelivery } from "./support.js";

t.test("orders, order lines, settlement entries, payables and status history refuse UPDATE and DELETE", (t) =>
  forEachDeliveryDialect(t, "append-only", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const { placed, accepted, courier: c1 } = await pickedUpOrder(rt, "cust-1", fixture);
    await advanceDelivery(rt, c1!.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    const id = placed.order.id;
    await t.rejects(db.db.updateTable("dl_orders").set({ total_minor: 1 }).where("id", "=", id).execute(), "order snapshot UPDATE refused");
    await t.rejects(db.db.deleteFrom("dl_orders").where("id", "=", id).execute(), "order DELETE refused");
    await t.rejects(db.db.updateTable("dl_order_lines").set({ name: "x" }).where("order_id", "=", id).execute(), "order line UPDATE refused");
    await t.rejects(db.db.deleteFrom("dl_order_lines").where("order_id", "=", id).execute(), "order line DELETE refused");
    await t.rejects(db.db.updateTable("dl_settlement_entries").set({ amount_minor: 1 }).where("order_id", "=", id).execute(), "settlement UPDATE refused");
    await t.rejects(db.db.deleteFrom("dl_settlement_entries").where("order_id", "=", id).execute(), "settlement DELETE refused");
    await t.rejects(db.db.deleteFrom("dl_delivery_status_changes").where("delivery_id", "=", accepted.delivery.id).execute(), "history DELETE refused");
    await t.rejects(db.db.updateTable("dl_quotes").set({ total_minor: 1 }).execute(), "quote UPDATE refused");
    await t.rejects(db.db.updateTable("dl_menu_items").set({ price_minor: 1 }).execute(), "published menu items UPDATE refused");
    // A placement left authorizing when its order was written: the database keeps it placed, and what was authorized.
    await t.rejects(db.db.updateTable("dl_quote_placements").set({ state: "released" }).where("quote_id", "=", placed.order.quoteId).execute(), "a placed placement is not released");
    await t.rejects(db.db.deleteFrom("dl_quote_placements").where("quote_id", "=", placed.order.quoteId).execute(), "placement DELETE refused");
    // The participants' payables (written by the settlement job) are append-only too.
    const recorded = await rt.run(
      Effect.gen(function* () {
        const entries = yield* (yield* SettlementLedger).entriesOfOrder(id);
        return yield* (yield* Payables).record(yield* payablesOf(entries, (yield* Ids).next));
      }),
    );
    t.equal(recorded, 2, "restaurant and courier payables");
    await t.rejects(db.db.updateTable("dl_payables").set({ amount_minor: 1 }).where("order_id", "=", id).execute(), "payable UPDATE refused");
    await t.rejects(db.db.deleteFrom("dl_payables").where("order_id", "=", id).execute(), "payable DELETE refused");
    const count = Number((await db.db.selectFrom("dl_settlement_entries").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
    t.equal(count, 4, "nothing was changed");
  }),
);

t.test("a settlement correction is a linked reversal with actor and reason, once; the ledger still sums to zero", (t) =>
  forEachDeliveryDialect(t, "reversal", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const { placed, accepted, courier: c1 } = await pickedUpOrder(rt, "cust-1", fixture);
    await advanceDelivery(rt, c1!.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    t.match(await rt.attempt(reverseSettlement({ actorId: "support-1", orderId: placed.order.id, reason: " " })), { ok: false, error: { code: "validation_failed" } }, "a reason is required");
    const reversal = await rt.run(reverseSettlement({ actorId: "support-1", orderId: placed.order.id, reason: "customer never received the order" }));
    t.equal(reversal.length, 4);
    t.ok(reversal.every((e) => e.reverses !== null && e.actorId === "support-1" && e.reason === "customer never received the order"), "linked, with actor and reason");
    t.match(await rt.attempt(reverseSettlement({ actorId: "support-2", orderId: placed.order.id, reason: "again" })), { ok: false, error: { code: "already_reversed" } });
    const totals = await rt.run(Effect.flatMap(SettlementLedger, (l) => l.totalsByCurrency));
    t.same(totals, [{ currency: "EUR", totalMinor: 0 }]);
    const net = (await rt.run(Effect.flatMap(SettlementLedger, (l) => l.entriesOfOrder(placed.order.id)))).reduce((s, e) => s + (e.account.startsWith("restaurant:") ? e.amountMinor : 0), 0);
    t.equal(net, 0, "the restaurant's payable is undone");
  }),
);

t.test("Postgres refuses to commit an order's settlement entries that do not balance", async (t) => {
  const db = await openTestDatabase("postgres", t, deliveryTestModules);
  const rt = deliveryRuntime(t, db);
  const fixture = await openRestaurant(rt);
  const { placed, accepted } = await pickedUpOrder(rt, "cust-1", fixture);
  const row = (component: string, amount: number) => ({
    id: `${component}-id`,
    order_id: placed.order.id,
    delivery_id: accepted.delivery.id,
    component,
    component_key: `order:${placed.order.id}:${component}`,
    account: component === "customer_charge" ? "customer:cust-1" : "platform",
    amount_minor: amount,
    currency: "EUR",
    reverses: null,
    actor_id: "test",
    reason: null,
    created_at: new Date(),
  });
  await t.rejects(db.db.insertInto("dl_settlement_entries").values([row("customer_charge", 100), row("platform_fee", -99)]).execute(), "unbalanced: refused");
  await db.db.insertInto("dl_settlement_entries").values([row("customer_charge", 100), row("platform_fee", -100)]).execute();
  t.pass("balanced: accepted");
});
