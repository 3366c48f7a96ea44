/**
 * Contract kit for DispatchRepository, the delivery module's dispatch store: one delivery per
 * order (duplicate-safe creation), the winner election as one conditional update (exactly one
 * courier wins, also when racing), versioned conditional updates, offers (live, decided once,
 * lost, expired), candidate couriers nearest first, the status history keyed by transition id,
 * one courier per user, the region and active-job reads, and the redaction of the drop-off of
 * deliveries ended before the retention cutoff.
 */
import { Effect, Exit } from "effect";
import { CourierId } from "../../../core/delivery/model/Courier.js";
import { CourierOfferId, type CourierOffer } from "../../../core/delivery/model/CourierOffer.js";
import { DeliveryId } from "../../../core/delivery/model/Delivery.js";
import { redactedDropoffAddress } from "../../../core/delivery/model/PriceSnapshot.js";
import { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import type { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { at, exitOf, runCases, T0, warmUp, type KitCase, type Run, type SuiteOptions } from "../Kit.js";
import { courierRecord, deliveryRecord, pickup, seedOrder, seedRestaurant, uid } from "./fixtures.js";

/** The ports this kit needs (orders and restaurants are written through their repositories). */
export type DispatchRepositoryKitPorts = DispatchRepository | OrdersRepository | RestaurantsRepository;

const dispatch = <A>(f: (r: DispatchRepository) => Effect.Effect<A>) => Effect.flatMap(DispatchRepository, f);

/** A restaurant, order `n` and its pending delivery `n`, stored. */
const seedDelivery = async (run: Run<DispatchRepositoryKitPorts>, n: number) => {
  const restaurant = await run(seedRestaurant(n));
  const order = await run(seedOrder(restaurant, n));
  const { delivery } = await run(dispatch((d) => d.insertDelivery(deliveryRecord(order, n))));
  return { restaurant, order, delivery };
};

/** `count` stored couriers, courier i at 0.001 * i degrees north of the pickup. */
const seedCouriers = async (run: Run<DispatchRepositoryKitPorts>, count: number) => {
  const couriers = [];
  for (let i = 1; i <= count; i++) couriers.push(await run(dispatch((d) => d.insertCourier(courierRecord(i)))));
  return couriers;
};

const offerRecord = (n: number, deliveryId: string, courierId: string, expiresAt: Date): CourierOffer => ({
  id: CourierOfferId.make(uid("ofr", n)),
  deliveryId: DeliveryId.make(deliveryId),
  courierId: CourierId.make(courierId),
  status: "offered",
  round: 1,
  expiresAt,
  createdAt: T0,
  decidedAt: null,
});

/** The cases of the dispatch repository kit. */
export const dispatchRepositoryCases: ReadonlyArray<KitCase<DispatchRepositoryKitPorts>> = [
  {
    name: "dispatch: one delivery per order; creating it again answers the stored one",
    run: async (t, run) => {
      const { order, delivery } = await seedDelivery(run, 1);
      const again = await run(dispatch((d) => d.insertDelivery(deliveryRecord(order, 2))));
      t.equal(again.created, false, "not created twice");
      t.equal(again.delivery.id, delivery.id, "the stored delivery");
      t.equal((await run(dispatch((d) => d.findDeliveryByOrder(order.id))))?.id, delivery.id);
      t.equal(await run(dispatch((d) => d.findDelivery(uid("dlv", 2)))), null);
    },
  },
  {
    name: "dispatch: the winner election is one conditional update: one courier wins, courier_id is set once, the version advances",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const [a, b] = await seedCouriers(run, 2);
      const won = await run(dispatch((d) => d.assignCourier(delivery.id, a!.id, at(1000))));
      t.equal(won?.courierId, a!.id);
      t.equal(won?.status, "assigned");
      t.equal(won?.version, delivery.version + 1);
      t.equal(await run(dispatch((d) => d.assignCourier(delivery.id, b!.id, at(2000)))), null, "the second courier loses");
      t.equal((await run(dispatch((d) => d.findDelivery(delivery.id))))?.courierId, a!.id, "the winner stays");
    },
  },
  {
    name: "dispatch: ten couriers racing for one delivery: exactly one wins",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const couriers = await seedCouriers(run, 10);
      await run(warmUp(10, dispatch((d) => d.findDelivery(delivery.id))));
      const results = await Promise.all(couriers.map((c) => run(dispatch((d) => d.assignCourier(delivery.id, c.id, at(1000))))));
      const winners = results.filter((r) => r !== null);
      t.equal(winners.length, 1, "one winner");
      t.equal((await run(dispatch((d) => d.findDelivery(delivery.id))))?.courierId, winners[0]?.courierId);
    },
  },
  {
    name: "dispatch: a delivery update is conditional on the stored version",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const [a] = await seedCouriers(run, 1);
      const assigned = await run(dispatch((d) => d.assignCourier(delivery.id, a!.id, at(1000))));
      if (assigned === null) throw new Error("fixture: not assigned");
      const next = { ...assigned, status: "picked_up" as const, version: assigned.version + 1, updatedAt: at(2000) };
      t.equal(await run(dispatch((d) => d.updateDelivery(next, assigned.version - 1))), false, "a stale version writes nothing");
      t.equal(await run(dispatch((d) => d.updateDelivery(next, assigned.version))), true);
      t.equal((await run(dispatch((d) => d.findDelivery(delivery.id))))?.status, "picked_up");
      t.equal(await run(dispatch((d) => d.updateDelivery({ ...next, version: next.version + 1 }, assigned.version))), false, "the same version twice: once");
    },
  },
  {
    name: "dispatch: offers are live until expiry, decided once, lost to the winner, expired when their time passed",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const [a, b, c] = await seedCouriers(run, 3);
      await run(
        dispatch((d) =>
          d.insertOffers([offerRecord(1, delivery.id, a!.id, at(30_000)), offerRecord(2, delivery.id, b!.id, at(20_000)), offerRecord(3, delivery.id, c!.id, at(10_000))]),
        ),
      );
      t.same((await run(dispatch((d) => d.liveOffers(a!.id, at(1000))))).map((o) => o.id), [uid("ofr", 1)]);
      t.same(await run(dispatch((d) => d.liveOffers(c!.id, at(10_000)))), [], "an offer at its expiry is no longer live");
      t.equal(await run(dispatch((d) => d.decideOffer(uid("ofr", 1), "offered", "accepted", at(2000)))), true);
      t.equal(await run(dispatch((d) => d.decideOffer(uid("ofr", 1), "offered", "accepted", at(2000)))), false, "decided once");
      const lost = await run(dispatch((d) => d.loseOtherOffers(delivery.id, uid("ofr", 1), at(2000))));
      t.same(lost.map((o) => o.id).sort(), [uid("ofr", 2), uid("ofr", 3)]);
      t.same((await run(dispatch((d) => d.offersOfDelivery(delivery.id)))).map((o) => o.status).sort(), ["accepted", "lost", "lost"]);
      t.equal(await run(dispatch((d) => d.expireOffers(delivery.id, at(60_000)))), 0, "decided offers do not expire");
    },
  },
  {
    name: "dispatch: expireOffers expires the offered ones whose time passed and answers how many",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const [a, b] = await seedCouriers(run, 2);
      await run(dispatch((d) => d.insertOffers([offerRecord(1, delivery.id, a!.id, at(10_000)), offerRecord(2, delivery.id, b!.id, at(50_000))])));
      t.equal(await run(dispatch((d) => d.expireOffers(delivery.id, at(20_000)))), 1);
      t.equal((await run(dispatch((d) => d.findOffer(uid("ofr", 1)))))?.status, "expired");
      t.equal((await run(dispatch((d) => d.findOffer(uid("ofr", 2)))))?.status, "offered");
    },
  },
  {
    name: "dispatch: candidates are online couriers with a position, not busy, never offered this delivery, nearest first",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const other = await seedDelivery(run, 2);
      const couriers = await seedCouriers(run, 5);
      const [c1, c2, c3, c4, c5] = couriers;
      await run(dispatch((d) => d.setCourierOnline(c5!.id, false)));
      await run(dispatch((d) => d.insertOffers([offerRecord(1, delivery.id, c1!.id, at(10_000))])));
      await run(dispatch((d) => d.assignCourier(other.delivery.id, c2!.id, at(1000))));
      const found = await run(dispatch((d) => d.candidates(delivery.id, pickup, 10, 20_000)));
      t.same(found.map((c) => c.id), [c3!.id, c4!.id], "offline, already offered and busy couriers are left out");
      t.same((await run(dispatch((d) => d.candidates(delivery.id, pickup, 1, 20_000)))).map((c) => c.id), [c3!.id], "at most limit");
      await run(dispatch((d) => d.setCourierLocation(c4!.id, { lat: pickup.lat, lng: pickup.lng, at: at(5000) })));
      t.same((await run(dispatch((d) => d.candidates(delivery.id, pickup, 10, 20_000)))).map((c) => c.id), [c4!.id, c3!.id], "a courier who moved closer comes first");
    },
  },
  {
    name: "dispatch: candidates lie within the dispatch radius of the pickup",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const [inside, outside, east] = await seedCouriers(run, 3);
      // About 9.95 km north, 10.5 km north and 9.9 km east (the distance of core/delivery/model/Geo.ts).
      await run(dispatch((d) => d.setCourierLocation(inside!.id, { lat: pickup.lat + 0.09, lng: pickup.lng, at: at(1000) })));
      await run(dispatch((d) => d.setCourierLocation(outside!.id, { lat: pickup.lat + 0.095, lng: pickup.lng, at: at(1000) })));
      await run(dispatch((d) => d.setCourierLocation(east!.id, { lat: pickup.lat, lng: pickup.lng + 0.146, at: at(1000) })));
      t.same((await run(dispatch((d) => d.candidates(delivery.id, pickup, 10, 10_000)))).map((c) => c.id), [east!.id, inside!.id], "the couriers within 10 km, nearest first");
      t.same((await run(dispatch((d) => d.candidates(delivery.id, pickup, 10, 11_000)))).map((c) => c.id), [east!.id, inside!.id, outside!.id], "a wider radius reaches the third");
    },
  },
  {
    name: "dispatch: clearCourierLocationsBefore forgets positions located before the cutoff, and such couriers are no candidates",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const [c1, c2] = await seedCouriers(run, 2);
      await run(dispatch((d) => d.setCourierLocation(c1!.id, { lat: pickup.lat, lng: pickup.lng, at: at(1000) })));
      await run(dispatch((d) => d.setCourierLocation(c2!.id, { lat: pickup.lat, lng: pickup.lng, at: at(9000) })));
      t.equal(await run(dispatch((d) => d.clearCourierLocationsBefore(at(5000)))), 1, "one position cleared");
      const cleared = await run(dispatch((d) => d.findCourier(c1!.id)));
      t.same([cleared?.lat, cleared?.lng, cleared?.locatedAt], [null, null, null], "the old position is gone");
      const kept = await run(dispatch((d) => d.findCourier(c2!.id)));
      t.same([kept?.lat, kept?.lng], [pickup.lat, pickup.lng], "the recent one stays");
      t.same((await run(dispatch((d) => d.candidates(delivery.id, pickup, 10, 20_000)))).map((c) => c.id), [c2!.id], "no position, no offer");
    },
  },
  {
    name: "dispatch: the status history is keyed by (delivery, transition id); a second change under one id is refused",
    run: async (t, run) => {
      const { delivery } = await seedDelivery(run, 1);
      const change = { deliveryId: delivery.id, transitionId: "p-1", fromStatus: "assigned" as const, toStatus: "picked_up" as const, version: 3, actorId: uid("usr", 1), reason: null, at: at(1000) };
      await run(dispatch((d) => d.insertStatusChange(change)));
      t.same(await run(dispatch((d) => d.findStatusChange(delivery.id, "p-1"))), change);
      t.equal(await run(dispatch((d) => d.findStatusChange(delivery.id, "p-2"))), null);
      const again = await run(exitOf(dispatch((d) => d.insertStatusChange({ ...change, toStatus: "delivered", version: 4 }))));
      t.ok(Exit.isFailure(again), "the same transition id cannot record another change");
      t.same((await run(dispatch((d) => d.statusHistory(delivery.id)))).map((c) => c.transitionId), ["p-1"]);
    },
  },
  {
    name: "dispatch: one courier per user; the active jobs and a region's unfinished deliveries",
    run: async (t, run) => {
      const [a] = await seedCouriers(run, 1);
      const twice = await run(dispatch((d) => d.insertCourier({ ...courierRecord(1), id: CourierId.make(uid("cou", 99)) })));
      t.equal(twice.id, a!.id, "registering the same user again answers the first courier");
      t.equal((await run(dispatch((d) => d.findCourierByUser(a!.userId))))?.id, a!.id);
      const { delivery } = await seedDelivery(run, 1);
      const second = await seedDelivery(run, 2);
      t.same(await run(dispatch((d) => d.activeDeliveriesOf(a!.id))), [], "no job before assignment");
      await run(dispatch((d) => d.assignCourier(delivery.id, a!.id, at(1000))));
      t.same((await run(dispatch((d) => d.activeDeliveriesOf(a!.id)))).map((d) => d.id), [delivery.id]);
      const region = { minLat: pickup.lat - 0.1, minLng: pickup.lng - 0.1, maxLat: pickup.lat + 0.1, maxLng: pickup.lng + 0.1 };
      const all = await run(dispatch((d) => d.deliveriesInRegion({ region, afterId: null, limit: 10 })));
      t.same(all.map((d) => d.id), [delivery.id, second.delivery.id].sort(), "by id");
      t.same((await run(dispatch((d) => d.deliveriesInRegion({ region, afterId: all[0]!.id, limit: 10 })))).map((d) => d.id), [all[1]!.id], "after a key");
      const elsewhere = { minLat: 0, minLng: 0, maxLat: 1, maxLng: 1 };
      t.same(await run(dispatch((d) => d.deliveriesInRegion({ region: elsewhere, afterId: null, limit: 10 }))), [], "another region");
    },
  },
  {
    name: "dispatch: the drop-off of a delivery delivered or cancelled before the cutoff is redacted once (3 decimals, address masked); an unfinished one keeps its own",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const precise = { dropoffLat: 52.5291234, dropoffLng: 13.4056789, dropoffAddress: "Torstraße 12, 3rd floor left" };
      const [ended, pending] = [await run(seedOrder(restaurant, 1)), await run(seedOrder(restaurant, 2))];
      const { delivery } = await run(dispatch((d) => d.insertDelivery(deliveryRecord(ended, 1, precise))));
      const { delivery: open } = await run(dispatch((d) => d.insertDelivery(deliveryRecord(pending, 2, precise))));
      const cancelled = { ...delivery, status: "cancelled" as const, version: 2, updatedAt: at(1000) };
      t.equal(await run(dispatch((d) => d.updateDelivery(cancelled, 1))), true);
      t.equal(await run(dispatch((d) => d.redactDropoffsEndedBefore(at(1000)))), 0, "nothing ended before the cutoff");
      t.equal(await run(dispatch((d) => d.redactDropoffsEndedBefore(at(2000)))), 1);
      t.same(await run(dispatch((d) => d.findDelivery(delivery.id))), { ...cancelled, dropoffLat: 52.529, dropoffLng: 13.406, dropoffAddress: redactedDropoffAddress }, "otherwise as written");
      t.same(await run(dispatch((d) => d.findDelivery(open.id))), open, "the pending delivery keeps its drop-off");
      t.equal(await run(dispatch((d) => d.redactDropoffsEndedBefore(at(2000)))), 0, "once");
    },
  },
];

/** Runs the dispatch repository kit. */
export const dispatchRepositorySuite = (options: SuiteOptions<DispatchRepositoryKitPorts>): Promise<unknown> => runCases(options, dispatchRepositoryCases);
