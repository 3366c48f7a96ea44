/**
 * Location retention (spec: precise locations are retained briefly; issue rule 5): a durable
 * job deletes samples older than DELIVERY_LOCATION_RETENTION_SECONDS (default one hour) and
 * schedules its next pass five minutes later.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { LocationSamples } from "../../ports/delivery/LocationSamples.js";
import type { Jobs } from "../../ports/Jobs.js";

export const retentionIntervalMs = 5 * 60_000;

/** Deletes the samples past retention; answers how many. */
export const purgeLocations = Effect.gen(function* () {
  const settings = yield* DeliverySettings;
  const at = yield* now;
  return yield* (yield* LocationSamples).deleteRecordedBefore(new Date(at.getTime() - settings.locationRetentionSeconds * 1000));
}).pipe(Effect.withSpan("delivery.purgeLocations"));

export const locationRetentionJob: JobDefinition<{ readonly pass: number }, DeliverySettings | LocationSamples | Jobs> = defineJob({
  kind: "delivery.location_retention",
  payload: Schema.Struct({ pass: Schema.Int }),
  handle: (p) =>
    Effect.gen(function* () {
      yield* purgeLocations;
      const next = new Date((yield* now).getTime() + retentionIntervalMs);
      yield* locationRetentionJob.schedule({ pass: p.pass + 1 }, { runAt: next, key: `pass-${p.pass + 1}` });
    }),
});
