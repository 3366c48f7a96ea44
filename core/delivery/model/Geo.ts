/** Coordinates of the delivery module: WGS 84 degrees, bounded like the wire contract says (docs/decisions.md, Food delivery (slice 1)). */
import { Schema } from "effect";

/** Latitude in degrees, -90 to 90. */
export const Latitude = Schema.Number.pipe(Schema.between(-90, 90));
/** Longitude in degrees, -180 to 180. */
export const Longitude = Schema.Number.pipe(Schema.between(-180, 180));

/** A point on the map. */
export interface Point {
  readonly lat: number;
  readonly lng: number;
}

/** Metres per degree of latitude, and of longitude at the equator. */
export const metresPerDegreeLat = 110_574;
export const metresPerDegreeLng = 111_320;

/** Metres per degree of longitude at the latitude of `from` (the scale of the projection). */
export const lngScale = (from: Point): number => Math.cos((from.lat * Math.PI) / 180) * metresPerDegreeLng;

/**
 * Distance in metres from `from` (the customer's point) to `to` (equirectangular projection at
 * `from`'s latitude: exact enough inside a city-sized service zone, and the very formula the
 * SQL discovery query uses, so the quote's zone check and discovery agree).
 */
export const distanceMetres = (from: Point, to: Point): number => {
  const dx = (to.lng - from.lng) * lngScale(from);
  const dy = (to.lat - from.lat) * metresPerDegreeLat;
  return Math.sqrt(dx * dx + dy * dy);
};
