/**
 * Spec, States and transitions: order state and courier assignment use conditional transitions;
 * pickup before assignment is prevented; an expired offer stays expired. The transition tables
 * (core/delivery/DeliveryStatus.ts, OrderStatus.ts, OfferStatus.ts) hold in the database too
 * (delivery migration 13): a write that goes around the core cannot make a move they forbid.
 */
import t from "tap";
import type { SqlDatabase } from "../../adapters/sql/SqlDatabase.js";
import { transitionTablesOfMigration13 } from "../../adapters/sql/delivery/migrations/0013_transition_tables.js";
import { deliveryTransitions } from "../../core/delivery/DeliveryStatus.js";
import { offerTransitions } from "../../core/delivery/OfferStatus.js";
import { orderTransitions, paymentTransitions } from "../../core/delivery/OrderStatus.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { decideSubstitution } from "../../core/delivery/DecideSubstitution.js";
import { publishMenu } from "../../core/delivery/Menus.js";
import { proposeSubstitution } from "../../core/delivery/ProposeSubstitution.js";
import { acceptedOrder, advanceDelivery, authorizedOrder, deliveryRuntime, forEachDeliveryDialect, onlineCouriers, openRestaurant, pickedUpOrder, sampleMenu, user } from "./support.js";

const deliveryRow = (db: SqlDatabase, id: string) => db.db.selectFrom("dl_deliveries").selectAll().where("id", "=", id).executeTakeFirstOrThrow();
const workflowRow = (db: SqlDatabase, orderId: string) => db.db.selectFrom("dl_restaurant_orders").selectAll().where("order_id", "=", orderId).executeTakeFirstOrThrow();

t.test("the database refuses every delivery transition the table forbids: pickup before assignment, a skipped pickup, cancelling a picked-up meal, another courier after pickup", (t) =>
  forEachDeliveryDialect(t, "delivery transitions in the database", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [courier, other] = await onlineCouriers(rt, 2);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const id = accepted.delivery.id;
    const pending = await deliveryRow(db, id);
    await t.rejects(
      db.db.updateTable("dl_deliveries").set({ status: "picked_up", courier_id: courier!.courier.id, version: Number(pending.version) + 1 }).where("id", "=", id).execute(),
      "pending → picked_up (pickup before assignment)",
    );
    await t.rejects(
      db.db.updateTable("dl_deliveries").set({ status: "delivered", courier_id: courier!.courier.id, version: Number(pending.version) + 1 }).where("id", "=", id).execute(),
      "pending → delivered",
    );
    const offer = (await rt.run(listMyOffers(courier!.principal)))[0]!;
    await rt.run(acceptOffer(courier!.principal, offer.id));
    const assigned = await deliveryRow(db, id);
    await t.rejects(
      db.db.updateTable("dl_deliveries").set({ status: "delivered", version: Number(assigned.version) + 1 }).where("id", "=", id).execute(),
      "assigned → delivered skips the pickup",
    );
    await t.rejects(db.db.updateTable("dl_deliveries").set({ status: "picked_up" }).where("id", "=", id).execute(), "a status change without a new version");
    await t.rejects(db.db.updateTable("dl_deliveries").set({ courier_id: other!.courier.id }).where("id", "=", id).execute(), "another courier without a new version");
    await advanceDelivery(rt, courier!.principal, id, { transitionId: "p", status: "picked_up" });
    const picked = await deliveryRow(db, id);
    await t.rejects(
      db.db.updateTable("dl_deliveries").set({ status: "cancelled", version: Number(picked.version) + 1 }).where("id", "=", id).execute(),
      "picked_up → cancelled",
    );
    await t.rejects(
      db.db.updateTable("dl_deliveries").set({ courier_id: other!.courier.id, version: Number(picked.version) + 1 }).where("id", "=", id).execute(),
      "a picked-up meal stays with its courier",
    );
    await advanceDelivery(rt, courier!.principal, id, { transitionId: "d", status: "delivered" });
    const delivered = await deliveryRow(db, id);
    t.match(delivered, { status: "delivered", courier_id: courier!.courier.id }, "the permitted path still runs");
    await t.rejects(
      db.db.updateTable("dl_deliveries").set({ courier_id: other!.courier.id, version: Number(delivered.version) + 1 }).where("id", "=", id).execute(),
      "a delivered delivery keeps its courier",
    );
  }),
);

t.test("the database refuses every order and payment transition the tables forbid, and a payment id once known never changes", (t) =>
  forEachDeliveryDialect(t, "order and payment transitions in the database", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const placed = await authorizedOrder(rt, "cust-1", fixture);
    const orderId = placed.order.id;
    const authorized = await workflowRow(db, orderId);
    t.match(authorized, { status: "authorized", payment_state: "authorized" });
    const v = Number(authorized.version) + 1;
    await t.rejects(db.db.updateTable("dl_restaurant_orders").set({ status: "completed", version: v }).where("order_id", "=", orderId).execute(), "authorized → completed (never accepted)");
    await t.rejects(db.db.updateTable("dl_restaurant_orders").set({ status: "payment_pending", version: v }).where("order_id", "=", orderId).execute(), "authorized → payment_pending");
    await t.rejects(db.db.updateTable("dl_restaurant_orders").set({ payment_state: "captured", version: v }).where("order_id", "=", orderId).execute(), "payment authorized → captured skips capture_pending");
    await t.rejects(db.db.updateTable("dl_restaurant_orders").set({ payment_state: "declined", version: v }).where("order_id", "=", orderId).execute(), "payment authorized → declined");
    await t.rejects(db.db.updateTable("dl_restaurant_orders").set({ payment_id: "pi_another", version: v }).where("order_id", "=", orderId).execute(), "the payment id is kept once known");
    await t.rejects(db.db.updateTable("dl_restaurant_orders").set({ reason: "x" }).where("order_id", "=", orderId).execute(), "a change without a new version");

    const { placed: done, accepted, courier } = await pickedUpOrder(rt, "cust-2", fixture);
    const acceptedRow = await workflowRow(db, done.order.id);
    await t.rejects(
      db.db.updateTable("dl_restaurant_orders").set({ status: "rejected", reason: "late", version: Number(acceptedRow.version) + 1 }).where("order_id", "=", done.order.id).execute(),
      "accepted → rejected",
    );
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    const captured = await workflowRow(db, done.order.id);
    t.match(captured, { status: "completed", payment_state: "captured" }, "the permitted path still runs");
    await t.rejects(
      db.db.updateTable("dl_restaurant_orders").set({ payment_state: "void_pending", version: Number(captured.version) + 1 }).where("order_id", "=", done.order.id).execute(),
      "captured → void_pending",
    );
    await t.rejects(
      db.db.updateTable("dl_restaurant_orders").set({ payment_state: "voided", version: Number(captured.version) + 1 }).where("order_id", "=", done.order.id).execute(),
      "captured → voided",
    );
    t.match(await workflowRow(db, done.order.id), { payment_state: "captured", version: captured.version }, "nothing changed");
  }),
);

t.test("the database refuses every offer transition the table forbids: an expired or lost offer is never accepted, an offer accepted after its expiry, an offer moved", (t) =>
  forEachDeliveryDialect(t, "offer transitions in the database", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [c1, c2] = await onlineCouriers(rt, 2);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const offers = await db.db.selectFrom("dl_courier_offers").selectAll().where("delivery_id", "=", accepted.delivery.id).orderBy("id").execute();
    t.equal(offers.length, 2, "an offer per courier");
    const [first, second] = offers;
    const late = new Date(Date.parse(String(first!.expires_at)) + 60_000);
    await t.rejects(
      db.db.updateTable("dl_courier_offers").set({ status: "accepted", decided_at: db.dialect === "sqlite" ? late.toISOString() : late }).where("id", "=", first!.id).execute(),
      "an offer accepted after it expired",
    );
    await t.rejects(db.db.updateTable("dl_courier_offers").set({ courier_id: c2!.courier.id === first!.courier_id ? c1!.courier.id : c2!.courier.id }).where("id", "=", first!.id).execute(), "an offer keeps its courier");
    const now = new Date();
    await db.db.updateTable("dl_courier_offers").set({ status: "expired", decided_at: db.dialect === "sqlite" ? now.toISOString() : now }).where("id", "=", second!.id).execute();
    await t.rejects(db.db.updateTable("dl_courier_offers").set({ status: "accepted" }).where("id", "=", second!.id).execute(), "expired → accepted");
    await t.rejects(db.db.updateTable("dl_courier_offers").set({ status: "offered", decided_at: null }).where("id", "=", second!.id).execute(), "expired → offered");
    const mine = (await rt.run(listMyOffers(first!.courier_id === c1!.courier.id ? c1!.principal : c2!.principal)))[0]!;
    await rt.run(acceptOffer(first!.courier_id === c1!.courier.id ? c1!.principal : c2!.principal, mine.id));
    await t.rejects(db.db.updateTable("dl_courier_offers").set({ status: "offered", decided_at: null }).where("id", "=", first!.id).execute(), "accepted → offered");
    await t.rejects(db.db.updateTable("dl_courier_offers").set({ status: "expired" }).where("id", "=", first!.id).execute(), "accepted → expired");
  }),
);

t.test("the database decides a substitution once and keeps what the customer agreed to", (t) =>
  forEachDeliveryDialect(t, "substitutions in the database", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const opened = await openRestaurant(rt, "owner-sub");
    const menu = await rt.run(publishMenu(user("owner-sub"), opened.restaurant.id, [...sampleMenu, { name: "Quattro Formaggi", priceMinor: 1400 }]));
    const { placed } = await acceptedOrder(rt, "customer-sub", { ...opened, menu });
    const line = placed.lines.find((l) => l.name === "Margherita")!;
    const replacement = menu.items.find((i) => i.name === "Quattro Formaggi")!;
    const proposed = await rt.run(proposeSubstitution(user("owner-sub"), placed.order.id, { lineNo: line.lineNo, replacementItemId: replacement.id, reason: "out of mozzarella" }));
    await t.rejects(db.db.updateTable("dl_substitutions").set({ charged_line_total_minor: 1400 }).where("id", "=", proposed.id).execute(), "a proposed substitution's charge is kept");
    await rt.run(decideSubstitution(user("customer-sub"), placed.order.id, proposed.id, "accepted"));
    const row = await db.db.selectFrom("dl_substitutions").selectAll().where("id", "=", proposed.id).executeTakeFirstOrThrow();
    t.match(row, { status: "accepted", charged_line_total_minor: line.lineTotalMinor }, "the permitted decision still runs");
    await t.rejects(db.db.updateTable("dl_substitutions").set({ status: "refused" }).where("id", "=", proposed.id).execute(), "accepted → refused");
    await t.rejects(db.db.updateTable("dl_substitutions").set({ status: "proposed", decided_at: null }).where("id", "=", proposed.id).execute(), "accepted → proposed");
    await t.rejects(db.db.updateTable("dl_substitutions").set({ charged_line_total_minor: 1400 }).where("id", "=", proposed.id).execute(), "a decided substitution's charge is kept");
    await t.rejects(db.db.deleteFrom("dl_substitutions").where("id", "=", proposed.id).execute(), "a substitution is never deleted");
  }),
);

t.test("the database's transition tables are the core's", async (t) => {
  t.same(transitionTablesOfMigration13, { delivery: deliveryTransitions, order: orderTransitions, payment: paymentTransitions, offer: offerTransitions });
});
