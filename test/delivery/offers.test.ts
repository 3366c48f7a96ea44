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
import { forEachDeliveryDialect } from "./support.js";
import { at } from "../worker/fixtures.js";
import { acceptedOrder, deliveryRuntime, onlineCouriers, openRestaurant } from "./support.js";

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
