/**
 * Contract kit for LocationSamples: samples read back per courier from a time on, oldest first,
 * with their positions exact (sealed at rest by the adapter, opened on read); retention deletes
 * every sample recorded before the cutoff and answers how many.
 */
import { Effect } from "effect";
import type { LocationSample } from "../../../core/delivery/model/LocationSample.js";
import { LocationSampleId } from "../../../core/delivery/model/Ids.js";
import { DispatchRepository } from "../../../ports/delivery/DispatchRepository.js";
import { LocationSamples } from "../../../ports/delivery/LocationSamples.js";
import type { OrdersRepository } from "../../../ports/delivery/OrdersRepository.js";
import type { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { courierRecord, pickup, uid } from "./fixtures.js";

/** The ports this kit needs (couriers and deliveries are written through the dispatch repository). */
export type LocationSamplesKitPorts = LocationSamples | DispatchRepository | OrdersRepository | RestaurantsRepository;

const samples = <A>(f: (r: LocationSamples) => Effect.Effect<A>) => Effect.flatMap(LocationSamples, f);

const sample = (n: number, courierId: LocationSample["courierId"], secondsAfterT0: number, dLat = 0): LocationSample => ({
  id: LocationSampleId.make(uid("smp", n)),
  courierId,
  lat: pickup.lat + 0.0012345 + dLat,
  lng: pickup.lng - 0.0006789,
  recordedAt: at(secondsAfterT0 * 1000),
  receivedAt: at(secondsAfterT0 * 1000 + 500),
});

const seedCouriers = Effect.flatMap(DispatchRepository, (d) => Effect.all([d.insertCourier(courierRecord(1)), d.insertCourier(courierRecord(2))]));

/** The cases of the location samples kit. */
export const locationSamplesCases: ReadonlyArray<KitCase<LocationSamplesKitPorts>> = [
  {
    name: "locations: a courier's samples from a time on, oldest first, positions exact; other couriers' apart",
    run: async (t, run) => {
      await run(seedCouriers);
      const mine = courierRecord(1).id;
      const theirs = courierRecord(2).id;
      await run(samples((s) => s.append([sample(2, mine, 20, 0.001), sample(1, mine, 10), sample(3, theirs, 15)])));
      const read = await run(samples((s) => s.samplesOf(mine, at(0))));
      t.same(read.map((x) => x.id), [uid("smp", 1), uid("smp", 2)], "oldest first, only this courier's");
      t.same(read[0], sample(1, mine, 10), "the exact position comes back");
      t.same((await run(samples((s) => s.samplesOf(mine, at(15_000))))).map((x) => x.id), [uid("smp", 2)], "from a time on");
      t.same((await run(samples((s) => s.samplesOf(theirs, at(0))))).map((x) => x.id), [uid("smp", 3)]);
    },
  },
  {
    name: "locations: retention deletes every sample recorded before the cutoff and answers how many",
    run: async (t, run) => {
      await run(seedCouriers);
      const mine = courierRecord(1).id;
      await run(samples((s) => s.append([sample(1, mine, 10), sample(2, mine, 20), sample(3, courierRecord(2).id, 5), sample(4, mine, 30)])));
      t.equal(await run(samples((s) => s.deleteRecordedBefore(at(20_000)))), 2);
      t.same((await run(samples((s) => s.samplesOf(mine, at(0))))).map((x) => x.id), [uid("smp", 2), uid("smp", 4)]);
      t.equal(await run(samples((s) => s.deleteRecordedBefore(at(20_000)))), 0, "nothing left before the cutoff");
    },
  },
];

/** Runs the location samples kit. */
export const locationSamplesSuite = (options: SuiteOptions<LocationSamplesKitPorts>): Promise<unknown> => runCases(options, locationSamplesCases);
