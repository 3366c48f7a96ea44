/**
 * Courier location samples (dl_location_samples): precise positions stored encrypted at rest
 * (the adapter seals latitude and longitude), kept only for the retention period.
 */
import { Context, type Effect } from "effect";
import type { LocationSample } from "../../core/delivery/model/LocationSample.js";

export interface LocationSamples {
  readonly append: (samples: ReadonlyArray<LocationSample>) => Effect.Effect<void>;
  /** The courier's samples recorded at or after `since`, oldest first. */
  readonly samplesOf: (courierId: string, since: Date) => Effect.Effect<ReadonlyArray<LocationSample>>;
  /** Audits one access to a precise location (who saw whose position, for which delivery); append-only. */
  readonly recordAccess: (access: {
    readonly id: string;
    readonly deliveryId: string;
    readonly viewerId: string;
    readonly viewerRole: "customer" | "courier" | "dispatcher";
    readonly at: Date;
  }) => Effect.Effect<void>;
  /** Deletes every sample recorded before `cutoff`; answers how many. */
  readonly deleteRecordedBefore: (cutoff: Date) => Effect.Effect<number>;
}
export const LocationSamples = Context.GenericTag<LocationSamples>("domainkit/delivery/LocationSamples");
