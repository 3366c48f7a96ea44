/**
 * Tracking (issue rule 5, spec: Authentication 2-4): the customer sees the courier's position
 * and the assigned courier the drop-off address only while the delivery is active; each
 * access is audited; before assignment, for anyone else and after completion it is 404.
 */
import t from "tap";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { listMyOffers, recordLocations } from "../../core/delivery/Couriers.js";
import { myActiveJob, trackDelivery } from "../../core/delivery/Tracking.js";
import { reassignDelivery } from "../../core/delivery/ReassignDelivery.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { trackingCloseDelayMs } from "../../core/delivery/TrackingClosed.js";
import { at } from "../worker/fixtures.js";
import { forEachDeliveryDialect, advanceDelivery } from "./support.js";
import { acceptedOrder, deliveryRuntime, here, onlineCouriers, openRestaurant, pickedUpOrder, user } from "./support.js";

t.test("tracking and the drop-off address are visible only during the active delivery, audited; 404 after completion", (t) =>
  forEachDeliveryDialect(t, "tracking", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const [c1, c2] = await onlineCouriers(rt, 2);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const id = accepted.delivery.id;
    const notFound = { ok: false, error: { code: "not_found" } };
    t.match(await rt.attempt(trackDelivery(user("cust-1"), id)), notFound, "no tracking before assignment");
    t.match(await rt.attempt(myActiveJob(c1!.principal, id)), notFound, "an offered courier does not see the address");

    await rt.run(acceptOffer(c1!.principal, (await rt.run(listMyOffers(c1!.principal)))[0]!.id));
    await rt.run(recordLocations(c1!.principal, [{ lat: here.lat + 0.0005, lng: here.lng, recordedAt: new Date() }]));
    const tracking = await rt.run(trackDelivery(user("cust-1"), id));
    t.match(tracking, { status: "assigned", version: 2, courierPosition: { lat: here.lat + 0.0005 } });
    t.match(await rt.run(myActiveJob(c1!.principal, id)), { dropoff: { address: "Alexanderplatz 1" } }, "the assigned courier sees the address");
    t.match(await rt.attempt(trackDelivery(user("cust-2"), id)), notFound, "another customer");
    t.match(await rt.attempt(myActiveJob(c2!.principal, id)), notFound, "another courier");
    const audited = await db.db.selectFrom("dl_location_access_log").select(["viewer_id", "viewer_role"]).execute();
    t.same(audited.map((a) => `${a.viewer_role}:${a.viewer_id}`).sort(), ["courier:courier-c-0", "customer:cust-1"], "each access is audited");

    await advanceDelivery(rt, c1!.principal, id, { transitionId: "p", status: "picked_up" });
    await advanceDelivery(rt, c1!.principal, id, { transitionId: "d", status: "delivered" });
    t.match(await rt.attempt(trackDelivery(user("cust-1"), id)), notFound, "after completion tracking answers 404");
    t.match(await rt.attempt(myActiveJob(c1!.principal, id)), notFound, "nor does the courier see the address any more");
  }),
);

/*
 * What the service does: "Precise courier and customer locations are ... exposed only during an
 * active delivery." The customer's tracking shows the courier's precise position only from
 * samples recorded since the courier was assigned to this delivery, never one from before (the
 * courier's way to work, or a previous customer's door).
 */
t.test("precise courier positions are exposed only during the active delivery: tracking shows no sample from before the assignment", (t) =>
  forEachDeliveryDialect(t, "tracking since assignment", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 1 });
    const fixture = await openRestaurant(rt);
    const [c1, c2] = await onlineCouriers(rt, 2);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const id = accepted.delivery.id;
    // The courier's precise position a moment before winning the delivery (its home, say).
    await rt.run(recordLocations(c1!.principal, [{ lat: here.lat + 0.00123, lng: here.lng + 0.00123, recordedAt: new Date(Date.now() - 500) }]));
    await rt.run(acceptOffer(c1!.principal, (await rt.run(listMyOffers(c1!.principal)))[0]!.id));
    t.match(await rt.run(trackDelivery(user("cust-1"), id)), { status: "assigned", courierPosition: null }, "no position sent during the delivery yet: none shown");
    const assignedAt = Date.now();
    await rt.run(recordLocations(c1!.principal, [{ lat: here.lat + 0.002, lng: here.lng, recordedAt: new Date(assignedAt + 1) }]));
    t.match(await rt.run(trackDelivery(user("cust-1"), id)), { courierPosition: { lat: here.lat + 0.002 } }, "a position sent during the delivery is shown");

    // Reassigned: the new courier's positions from before the reassignment are not shown either.
    await rt.run(recordLocations(c2!.principal, [{ lat: here.lat + 0.00345, lng: here.lng, recordedAt: new Date() }]));
    await rt.run(at(Date.now() + 10)(reassignDelivery({ actorId: "dispatcher-1", deliveryId: id, courierId: c2!.courier.id, reason: "courier 1 has a flat tyre" })));
    t.match(await rt.run(at(Date.now() + 20)(trackDelivery(user("cust-1"), id))), { courierPosition: null }, "the new courier's earlier position is not shown");
  }),
);

t.test("a sample received before the assignment is not shown, even stamped later by a courier's clock running ahead", (t) =>
  forEachDeliveryDialect(t, "tracking clock ahead", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 1 });
    const fixture = await openRestaurant(rt);
    const [c1] = await onlineCouriers(rt, 1);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    // Sent before the assignment, stamped 30 s ahead (ingestion accepts a minute of skew).
    await rt.run(recordLocations(c1!.principal, [{ lat: here.lat + 0.00123, lng: here.lng + 0.00123, recordedAt: new Date(Date.now() + 30_000) }]));
    await rt.run(acceptOffer(c1!.principal, (await rt.run(listMyOffers(c1!.principal)))[0]!.id));
    t.match(await rt.run(trackDelivery(user("cust-1"), accepted.delivery.id)), { status: "assigned", courierPosition: null }, "not shown");
  }),
);

t.test("tracking ends with the delivery: a few seconds after completion the customer's live subscription is re-checked", (t) =>
  forEachDeliveryDialect(t, "tracking closed", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt, "owner-tc");
    const { accepted, courier } = await pickedUpOrder(rt, "customer-tc", fixture);
    await advanceDelivery(rt, courier.principal, accepted.delivery.id, { transitionId: "d", status: "delivered" });
    const completedAt = Date.now();
    await rt.run(at(completedAt + 1000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    t.same(rt.notices.filter((n) => n.type === "access_changed"), [], "not before the completion's own events had time to arrive");
    await rt.run(at(completedAt + trackingCloseDelayMs + 1000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    t.same(
      rt.notices.filter((n) => n.type === "access_changed"),
      [{ type: "access_changed", userId: "customer-tc", channel: `delivery:${accepted.delivery.id}` }],
      "then the customer's access to the delivery channel is re-checked (and refused)",
    );
  }),
);
