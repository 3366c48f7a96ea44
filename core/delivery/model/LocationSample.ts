/**
 * One courier location sample (spec: LocationSample): ephemeral, approximate, not the source of
 * truth; stored encrypted and deleted by the retention job (docs/decisions.md, Food delivery
 * (slice 1)).
 */
import { Schema } from "effect";
import { CourierId, LocationSampleId } from "./Ids.js";
import { Latitude, Longitude } from "./Geo.js";
import { retainedBriefly } from "../../kernel/RetainedBriefly.js";

export const LocationSample = Schema.Struct({
  id: LocationSampleId,
  courierId: CourierId,
  lat: retainedBriefly(Latitude),
  lng: retainedBriefly(Longitude),
  recordedAt: Schema.DateFromSelf,
  receivedAt: Schema.DateFromSelf,
});
export type LocationSample = typeof LocationSample.Type;
