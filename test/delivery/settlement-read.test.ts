/**
 * Settlement is visible to the restaurant (spec: settle participants): the staff of the owning
 * restaurant read an order's entries — empty before completion, then the four components that
 * sum to zero — and anyone else gets NotFound (SQLite and Postgres).
 */
import t from "tap";
import { orderSettlement } from "../../core/delivery/OrderSettlement.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder, user, advanceDelivery } from "./support.js";

t.test("the restaurant's staff read an order's balanced settlement; others get 404", (t) =>
  forEachDeliveryDialect(t, "settlement read", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-s");
    const { placed, accepted, courier } = await pickedUpOrder(rt, "customer-s", fixture);
    const orderId = placed.order.id;
    t.same(await rt.run(orderSettlement(user(fixture.owner), orderId)), [], "nothing is settled before completion");
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    const entries = await rt.run(orderSettlement(user(fixture.owner), orderId));
    t.same(entries.map((e) => e.component).sort(), ["courier_payable", "customer_charge", "platform_fee", "restaurant_payable"]);
    t.equal(entries.reduce((sum, e) => sum + e.amountMinor, 0), 0, "the entries sum to zero");
    t.equal(entries.find((e) => e.component === "customer_charge")?.amountMinor, placed.order.totalMinor);
    for (const stranger of ["customer-s", "owner-other", "courier-for-customer-s-0"]) {
      t.match(await rt.attempt(orderSettlement(user(stranger), orderId)), { ok: false, error: { _tag: "NotFound" } }, `${stranger} gets NotFound`);
    }
  }),
);
