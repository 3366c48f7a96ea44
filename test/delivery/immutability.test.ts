/**
 * Issue rule 4: orders, order lines, settlement entries and the delivery status history are
 * immutable — the database itself refuses UPDATE and DELETE.
 */
import t from "tap";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { forEachDialect } from "../support/databases.js";
import { acceptedOrder, deliveryRuntime, onlineCouriers, openRestaurant } from "./support.js";

t.test("orders, order lines, settlement entries and status history refuse UPDATE and DELETE", (t) =>
  forEachDialect(t, "append-only", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [c1] = await onlineCouriers(rt, 1);
    const { placed, accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const offer = (await rt.run(listMyOffers(c1!.principal)))[0]!;
    await rt.run(acceptOffer(c1!.principal, offer.id));
    await rt.run(updateDeliveryStatus(c1!.principal, accepted.delivery.id, { transitionId: "p", status: "picked_up" }));
    await rt.run(updateDeliveryStatus(c1!.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" }));
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
    const count = Number((await db.db.selectFrom("dl_settlement_entries").select((eb) => eb.fn.countAll().as("n")).executeTakeFirstOrThrow()).n);
    t.equal(count, 4, "nothing was changed");
  }),
);
