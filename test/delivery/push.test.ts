/**
 * Push notifications (issue: background work, a port with a development adapter): the push
 * consumer schedules one durable job per recipient — staff of a new order, the offered courier,
 * the customer on acceptance, assignment and completion — with no address in any push, and an event handled
 * twice while its jobs wait schedules nothing new (SQLite and Postgres).
 */
import { Effect } from "effect";
import t from "tap";
import { relayOnce } from "../../adapters/worker/OutboxRelay.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { deliveryPushConsumer, schedulePushes } from "../../core/delivery/PushNotifications.js";
import { OrderPlaced } from "../../core/delivery/Events.js";
import { at } from "../worker/fixtures.js";
import { deliveryRuntime, forEachDeliveryDialect, openRestaurant, pickedUpOrder, user, advanceDelivery } from "./support.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { addStaff } from "../../core/delivery/Restaurants.js";

t.test("delivery events become one push per recipient, sent by a durable job", (t) =>
  forEachDeliveryDialect(t, "push", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-p");
    await rt.run(addStaff(user("owner-p"), fixture.restaurant.id, "cook-p"));
    const { accepted, courier } = await pickedUpOrder(rt, "customer-p", fixture);
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    await rt.run(
      Effect.gen(function* () {
        for (let i = 0; i < 20; i++) if ((yield* relayOnce([deliveryPushConsumer], { workerId: "test-relay" })).claimed === 0) break;
      }),
    );
    const later = Date.now() + 60_000;
    await rt.run(at(later)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    const byKind = (kind: string) => rt.pushes.filter((p) => p.kind === kind).map((p) => p.recipientUserId).sort();
    t.same(byKind("order_placed"), ["cook-p", "owner-p"], "every staff member hears of the new order");
    t.same(byKind("courier_offered"), [courier.principal.kind === "user" ? courier.principal.userId : ""], "the offered courier");
    // Events: "RestaurantAcceptedOrder | Order service to dispatch, notifications": the customer
    // hears that the restaurant accepted, with the promised preparation time.
    t.same(byKind("order_accepted"), ["customer-p"], "the customer hears of the acceptance");
    t.match(rt.pushes.find((p) => p.kind === "order_accepted")?.data, { order_id: accepted.workflow.orderId, prep_time_minutes: "15" });
    t.same(byKind("courier_assigned"), ["customer-p"]);
    t.same(byKind("delivery_completed"), ["customer-p"]);
    for (const push of rt.pushes) {
      t.notOk(JSON.stringify(push).includes("Alexanderplatz"), "no address in a push");
    }

    // A redelivered event schedules nothing new: the job key is the event and the recipient.
    const sent = rt.pushes.length;
    const envelope = await rt.run(
      OrderPlaced.make({
        tenant_id: fixture.restaurant.id,
        aggregate_id: "order-x",
        aggregate_version: 1,
        actor_id: "customer-p",
        data: { order_id: "order-x", restaurant_id: fixture.restaurant.id, customer_id: "customer-p", total_minor: 1, currency: "EUR", payment_state: "authorized" },
      }),
    );
    t.equal(await rt.run(schedulePushes(envelope)), 2);
    await rt.run(schedulePushes(envelope));
    await rt.run(at(later + 1000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    t.equal(rt.pushes.length, sent + 2, "two pushes, once");
  }),
);
