/**
 * Who dispatches where (spec: Dispatcher or support, region-scoped operations): the region of a
 * dispatcher, or null for anyone else. The reference server reads it from DELIVERY_DISPATCHERS;
 * an embedding host binds its own directory.
 */
import { Context, type Effect } from "effect";

/** A rectangular region in degrees (inclusive): a dispatcher sees deliveries picked up inside it. */
export interface Region {
  readonly minLat: number;
  readonly minLng: number;
  readonly maxLat: number;
  readonly maxLng: number;
}

export interface Dispatchers {
  readonly regionOf: (userId: string) => Effect.Effect<Region | null>;
}
export const Dispatchers = Context.GenericTag<Dispatchers>("domainkit/delivery/Dispatchers");
