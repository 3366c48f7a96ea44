/**
 * Issue rule 5 (the storage half): precise location samples are stored encrypted (no position
 * in the row), readable with the key, and the retention job deletes samples past the
 * documented period. Exposure during an active delivery and access auditing come with the
 * tracking routes.
 */
import t from "tap";
import { Effect } from "effect";
import { runJobsOnce } from "../../adapters/worker/JobRunner.js";
import { recordLocations } from "../../core/delivery/Couriers.js";
import { deliveryJobs } from "../../core/delivery/Jobs.js";
import { locationRetentionJob } from "../../core/delivery/LocationRetention.js";
import { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import { forEachDeliveryDialect } from "./support.js";
import { at } from "../worker/fixtures.js";
import { deliveryRuntime, onlineCouriers, openRestaurant, pickedUpOrder, here } from "./support.js";
import { Outbox } from "../../ports/Outbox.js";

t.test("location samples are stored encrypted and deleted after the retention period by a durable job", (t) =>
  forEachDeliveryDialect(t, "locations", async (t, db) => {
    const rt = deliveryRuntime(t, db, { locationRetentionSeconds: 3600 });
    const [c] = await onlineCouriers(rt, 1);
    const start = Date.now();
    const result = await rt.run(
      recordLocations(c!.principal, [
        { lat: 52.123456, lng: 13.654321, recordedAt: new Date(start - 1000) },
        { lat: 52.2, lng: 13.7, recordedAt: new Date(start + 3_600_000) },
      ]),
    );
    t.same(result, { accepted: 1, dropped: 1 }, "a sample from the future is dropped");
    const rows = await db.db.selectFrom("dl_location_samples").selectAll().execute();
    const raw = JSON.stringify(rows.map((r) => ({ ...r, sealed: Buffer.from(r.sealed).toString("latin1") })));
    t.notMatch(raw, /52\.12|13\.65/, "no position in clear text");
    const samples = await rt.run(Effect.flatMap(LocationSamples, (l) => l.samplesOf(c!.courier.id, new Date(0))));
    t.match(samples.at(-1), { lat: 52.123456, lng: 13.654321 }, "readable with the key");
    const stored = samples.length;

    await rt.run(locationRetentionJob.schedule({ pass: 1 }, { runAt: new Date(start), key: "pass-1" }));
    await rt.run(at(start + 10_000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    t.equal((await db.db.selectFrom("dl_location_samples").select("id").execute()).length, stored, "kept within the retention period");
    await rt.run(at(start + 3_600_000 + 600_000)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    t.equal((await db.db.selectFrom("dl_location_samples").select("id").execute()).length, 0, "deleted after it");
  }),
);

t.test("a location update commits its samples, the dispatch position and the tracking events together: a failure leaves none of them", (t) =>
  forEachDeliveryDialect(t, "locations-atomic", async (t, db) => {
    const rt = deliveryRuntime(t, db);
    const fixture = await openRestaurant(rt);
    const { courier } = await pickedUpOrder(rt, "customer-1", fixture);
    const state = async () => ({
      samples: (await db.db.selectFrom("dl_location_samples").select("id").execute()).length,
      position: await db.db.selectFrom("dl_couriers").select(["lat", "lng"]).where("id", "=", courier.courier.id).executeTakeFirstOrThrow(),
      outbox: (await db.db.selectFrom("outbox").select("id").where("type", "=", "CourierPositionUpdated").execute()).length,
    });
    const before = await state();
    const failingOutbox = Outbox.of({ append: () => Effect.die(new Error("outbox unavailable")) });
    const move = recordLocations(courier.principal, [{ lat: here.lat + 0.004, lng: here.lng + 0.002, recordedAt: new Date() }]);
    const exit = await rt.runtime.runPromiseExit(Effect.provideService(move, Outbox, failingOutbox));
    t.equal(exit._tag, "Failure", "the update failed at its tracking event");
    t.same(await state(), before, "no sample, no new position, no event");
    await rt.run(move);
    const after = await state();
    t.equal(after.samples, before.samples + 1, "retried: the sample is stored");
    t.not(after.position.lat, before.position.lat, "and the courier's position moved");
    t.equal(after.outbox, before.outbox + 1, "and the customer's tracking event is in the outbox");
  }),
);


/*
 * Spec, What the service does: "Precise courier and customer locations are retained briefly";
 * Authentication 4: "Location access is short-lived, encrypted and audited". The courier's
 * dispatch position (dl_couriers) is kept only approximately (3 decimals, about 100 m), never the
 * precise sample, and the retention pass clears a position older than the retention period.
 */
t.test("precise courier locations are retained briefly: the dispatch position is approximate and cleared after the retention period", (t) =>
  forEachDeliveryDialect(t, "dispatch position", async (t, db) => {
    const rt = deliveryRuntime(t, db, { locationRetentionSeconds: 3600 });
    const [stale, fresh] = await onlineCouriers(rt, 2, "pos");
    const start = Date.now();
    await rt.run(recordLocations(stale!.principal, [{ lat: 52.123456, lng: 13.654321, recordedAt: new Date(start - 1000) }]));
    const position = async (id: string) =>
      db.db.selectFrom("dl_couriers").select(["lat", "lng", "located_at"]).where("id", "=", id).executeTakeFirstOrThrow();
    const kept = await position(stale!.courier.id);
    t.same([Number(kept.lat), Number(kept.lng)], [52.123, 13.654], "only the rounded position is stored");

    const later = start + 3_600_000 + 600_000;
    await rt.run(at(later - 60_000)(recordLocations(fresh!.principal, [{ lat: 52.5, lng: 13.4, recordedAt: new Date(later - 60_000) }])));
    await rt.run(locationRetentionJob.schedule({ pass: 1 }, { runAt: new Date(start), key: "pass-1" }));
    await rt.run(at(later)(runJobsOnce(deliveryJobs, { workerId: "delivery-test", concurrency: 1 })));
    const cleared = await position(stale!.courier.id);
    t.same([cleared.lat, cleared.lng, cleared.located_at], [null, null, null], "a position older than the retention period is cleared");
    const recent = await position(fresh!.courier.id);
    t.same([Number(recent.lat), Number(recent.lng)], [52.5, 13.4], "a position within the period is kept");
  }),
);
