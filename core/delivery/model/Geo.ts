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

/**
 * Distance in metres between two points (equirectangular approximation: exact enough inside a
 * city-sized service zone, and the same formula the SQL candidate ordering uses).
 */
export const distanceMetres = (a: Point, b: Point): number => {
  const meanLat = ((a.lat + b.lat) / 2) * (Math.PI / 180);
  const dx = (b.lng - a.lng) * Math.cos(meanLat) * 111_320;
  const dy = (b.lat - a.lat) * 110_574;
  return Math.sqrt(dx * dx + dy * dy);
};
