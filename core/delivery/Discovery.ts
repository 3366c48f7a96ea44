/**
 * GET /restaurants?lat=&lng=&cursor= (public, rate-limited at the route): open restaurants
 * whose service zone contains the point, nearest first, in stable keyset pages. Missing or
 * out-of-range coordinates are 400 invalid_coordinates; the cursor is bound to the point, so a
 * cursor of another point is 400 invalid_cursor. Browsing may be slightly stale (spec).
 */
import { Effect, Schema } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { InvalidCursor } from "../kernel/Errors.js";
import { pageFrom, type Page } from "../kernel/Page.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { InvalidCoordinates } from "./Errors.js";
import type { Restaurant } from "./model/Restaurant.js";
import { maxServiceRadiusM } from "./Restaurants.js";
import { withSpan } from "../kernel/Span.js";

/** The cursor of a discovery page: the point, then the last row's squared distance and id. */
export const DiscoveryCursorKey = Schema.Tuple(Schema.Number, Schema.Number, Schema.Number, Schema.String);

export const defaultDiscoveryLimit = 20;

/** A restaurant as discovery lists it: with its distance from the point. */
export interface DiscoveredRestaurant {
  readonly restaurant: Restaurant;
  readonly distanceM: number;
}

const validCoordinate = (value: number | undefined, bound: number): value is number =>
  value !== undefined && Number.isFinite(value) && value >= -bound && value <= bound;

/** One page of open restaurants serving the point. */
export const discoverRestaurants = (query: { readonly lat?: number; readonly lng?: number; readonly cursor?: string | undefined; readonly limit?: number }) =>
  Effect.gen(function* () {
    const { lat, lng } = query;
    if (!validCoordinate(lat, 90) || !validCoordinate(lng, 180)) {
      return yield* Effect.fail(new InvalidCoordinates({ detail: "lat must be from -90 to 90 and lng from -180 to 180" }));
    }
    let after: { distanceSquared: number; id: string } | null = null;
    if (query.cursor !== undefined) {
      const [cLat, cLng, distanceSquared, id] = yield* decodeCursor(DiscoveryCursorKey, query.cursor);
      if (cLat !== lat || cLng !== lng) return yield* Effect.fail(new InvalidCursor({ detail: "the cursor belongs to another point" }));
      after = { distanceSquared, id };
    }
    const limit = Math.min(Math.max(query.limit ?? defaultDiscoveryLimit, 1), 100);
    const rows = yield* (yield* RestaurantsRepository).listOpenNear({ point: { lat, lng }, after, limit: limit + 1, maxRadiusM: maxServiceRadiusM });
    const page = pageFrom(rows, limit, (row) => [lat, lng, row.distanceSquared, row.restaurant.id]);
    return {
      data: page.data.map((row) => ({ restaurant: row.restaurant, distanceM: Math.round(Math.sqrt(row.distanceSquared)) })),
      next_cursor: page.next_cursor,
    } satisfies Page<DiscoveredRestaurant>;
  }).pipe(withSpan("delivery.discoverRestaurants"));
