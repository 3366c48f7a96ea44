/**
 * Offers expire (spec: offer expiry → expired, redispatch): an expired offer answers 410
 * offer_expired and leaves the delivery unchanged; the expiry job expires the round and offers
 * the delivery to other couriers.
 */
import t from "tap";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { acceptOffer } from "../../core/delivery/AcceptOffer.js";
import { listMyOffers } from "../../core/delivery/Couriers.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { reassignDelivery } from "../../core/delivery/ReassignDelivery.js";
import { updateDeliveryStatus } from "../../core/delivery/UpdateDeliveryStatus.js";
import { forEachDeliveryDialect, advanceDelivery } from "./support.js";
import { at } from "../worker/fixtures.js";
import { acceptedOrder, deliveryRuntime, onlineCouriers, openRestaurant, pickedUpOrder } from "./support.js";

t.test("an expired offer is 410 offer_expired; expiry redispatches to other couriers, who can win", (t) =>
  forEachDeliveryDialect(t, "offer expiry", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 2, offerTtlSeconds: 30 });
    const fixture = await openRestaurant(rt);
    const couriers = await onlineCouriers(rt, 4);
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const first = (await rt.run(listMyOffers(couriers[0]!.principal)))[0]!;
    t.equal((await rt.run(listMyOffers(couriers[2]!.principal))).length, 0, "the third courier has no offer in round 1");

    const late = first.expiresAt.getTime() + 1000;
    t.match(await rt.attempt(at(late)(acceptOffer(couriers[0]!.principal, first.id))), {
      ok: false,
      error: { code: "offer_expired", _tag: "OfferExpired" },
    });
    const ran = await rt.run(at(late)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    t.ok(ran.done >= 1, "the expiry job ran");
    const statuses = await db.db.selectFrom("dl_courier_offers").select(["courier_id", "status", "round"]).orderBy("round").orderBy("courier_id").execute();
    t.same(statuses.filter((s) => Number(s.round) === 1).map((s) => String(s.status)), ["expired", "expired"], "round 1 expired");
    t.equal(statuses.filter((s) => Number(s.round) === 2).length, 2, "round 2 offered to two others");
    const round2 = await rt.run(at(late)(listMyOffers(couriers[2]!.principal)));
    t.equal(round2.length, 1, "the third courier now holds an offer");
    const won = await rt.run(at(late)(acceptOffer(couriers[2]!.principal, round2[0]!.id)));
    t.equal(won.courierId, couriers[2]!.courier.id);
    t.equal(won.id, accepted.delivery.id);
  }),
);

/*
 * Spec, Authentication 3: "A courier sees the customer address only for an assigned active
 * delivery." Accepting an already accepted offer again (a new Idempotency-Key) answers the
 * delivery, with its drop-off address, only while the caller is its courier and it is assigned
 * or picked up: a courier reassigned away, or the winner after delivery, is refused (409).
 */
t.test("a courier sees the customer address only for an assigned active delivery: re-accepting a taken or finished delivery is refused", (t) =>
  forEachDeliveryDialect(t, "re-accept", async (t, db) => {
    const rt = deliveryRuntime(t, db, { offerFanout: 2 });
    const fixture = await openRestaurant(rt);
    const [first, second] = await onlineCouriers(rt, 2);

    // Reassigned away: the previous winner's offer is lost and re-accepting it is 409.
    const { accepted } = await acceptedOrder(rt, "cust-1", fixture);
    const offer = (await rt.run(listMyOffers(first!.principal))).find((o) => o.deliveryId === accepted.delivery.id)!;
    const won = await rt.run(acceptOffer(first!.principal, offer.id));
    t.equal(won.dropoffAddress, "Alexanderplatz 1", "the winner sees the drop-off while assigned");
    await rt.run(reassignDelivery({ actorId: "dispatcher-1", deliveryId: accepted.delivery.id, courierId: second!.courier.id, reason: "courier stuck" }));
    const offerRow = await db.db.selectFrom("dl_courier_offers").select(["status"]).where("id", "=", offer.id).executeTakeFirstOrThrow();
    t.equal(String(offerRow.status), "lost", "reassignment marks the previous accepted offer lost");
    const afterReassign = await rt.attempt(acceptOffer(first!.principal, offer.id));
    t.match(afterReassign, { ok: false, error: { code: "delivery_already_assigned", category: "conflict" } }, "reassigned away: refused");
    t.notOk(JSON.stringify(afterReassign).includes("Alexanderplatz"), "no address in the refusal");

    // Delivered: the winner re-accepting after completion is 409.
    const done = await pickedUpOrder(rt, "cust-2", fixture);
    const doneOffer = (await db.db.selectFrom("dl_courier_offers").select(["id"]).where("delivery_id", "=", done.accepted.delivery.id).where("status", "=", "accepted").executeTakeFirstOrThrow()).id;
    t.equal((await rt.run(acceptOffer(done.courier.principal, String(doneOffer)))).status, "picked_up", "still active: the same delivery");
    await advanceDelivery(rt, done.courier.principal, done.accepted.delivery.id, { transitionId: "d", status: "delivered" });
    const afterDelivery = await rt.attempt(acceptOffer(done.courier.principal, String(doneOffer)));
    t.match(afterDelivery, { ok: false, error: { code: "delivery_not_active", category: "conflict" } }, "delivered: refused");
    t.notOk(JSON.stringify(afterDelivery).includes("Alexanderplatz"), "no address in the refusal");
  }),
);
