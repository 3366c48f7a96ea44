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
import { deliveryRuntime, onlineCouriers } from "./support.js";

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
