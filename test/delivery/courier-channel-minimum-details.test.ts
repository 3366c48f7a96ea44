/**
 * Spec, Roles: "Courier (own offers, active job, minimum pickup and drop-off details)"; Events:
 * DeliveryCompleted goes to "settlement, receipts, analytics". No event on a courier's channel
 * carries the order's money (its total, a refund): DeliveryCompleted (with the order's total, for
 * receipts) goes to the customer and the restaurant only, and the courier hears of the completion
 * they made as DeliveryStatusChanged version 2 (to `delivered`) — SQLite and Postgres.
 */
import t from "tap";
import { deliveryChannelsFor } from "../../core/delivery/ChannelAccess.js";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { advanceDelivery, deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder } from "./support.js";

t.test("no event on a courier's channel carries the order's total; the courier still hears of the completion", (t) =>
  forEachDeliveryDialect(t, "courier channel money", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-money");
    const { accepted, courier } = await pickedUpOrder(rt, "customer-money", fixture);
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });

    const rows = await db.db.selectFrom("outbox").select("event").orderBy("seq").execute();
    const events = rows.map((r) => (typeof r.event === "string" ? JSON.parse(r.event) : r.event) as EventEnvelope);
    const courierChannel = `courier:${courier.courier.id}`;
    const onCourierChannel = events.filter((e) => deliveryChannelsFor(e).includes(courierChannel));
    t.ok(onCourierChannel.length > 0, "the courier's channel carries the delivery's events");
    for (const event of onCourierChannel) {
      t.notOk(Object.keys(event.data as object).some((field) => field.endsWith("_minor")), `${event.type} on the courier's channel carries no amount`);
    }
    const completed = events.find((e) => e.type === "DeliveryCompleted");
    t.same(deliveryChannelsFor(completed!), [`delivery:${accepted.delivery.id}`, `restaurant:${accepted.delivery.restaurantId}`], "DeliveryCompleted: the customer and the restaurant");
    t.ok(
      onCourierChannel.some((e) => e.type === "DeliveryStatusChanged" && (e.data as { to: string }).to === "delivered"),
      "the courier hears of the completion as a status change",
    );
  }),
);
