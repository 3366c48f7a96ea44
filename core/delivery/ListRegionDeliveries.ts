/**
 * GET /dispatch/deliveries (dispatchers): the unfinished deliveries picked up inside the
 * caller's region — pending, assigned, picked up — by id, in keyset pages. Anyone who is not a
 * dispatcher is refused (403: the list exists, the caller may not read it).
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { Forbidden } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import type { Principal } from "../../ports/Principal.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { Dispatchers, type Region } from "../../ports/delivery/Dispatchers.js";
import { requireUser } from "./Access.js";
import type { Delivery } from "./model/Delivery.js";
import { withSpan } from "../kernel/Span.js";

/** The caller's dispatch region; Forbidden for anyone who is not a dispatcher. */
export const dispatcherRegion = (principal: Principal): Effect.Effect<{ readonly userId: string; readonly region: Region }, Forbidden, Dispatchers> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const region = yield* (yield* Dispatchers).regionOf(userId);
    if (region === null) return yield* Effect.fail(new Forbidden({ detail: "Only a dispatcher can use the dispatch console." }));
    return { userId, region };
  });

/** True when the delivery is picked up inside `region`. */
export const inRegion = (delivery: Delivery, region: Region): boolean =>
  delivery.pickupLat >= region.minLat && delivery.pickupLat <= region.maxLat && delivery.pickupLng >= region.minLng && delivery.pickupLng <= region.maxLng;

/** One page of the region's unfinished deliveries. */
export const listRegionDeliveries = (principal: Principal, query: { readonly cursor?: string | undefined; readonly limit?: number } = {}) =>
  Effect.gen(function* () {
    const { region } = yield* dispatcherRegion(principal);
    const afterId = query.cursor === undefined ? null : (yield* decodeCursor(IdCursorKey, query.cursor))[0];
    const limit = Math.min(Math.max(query.limit ?? 50, 1), 200);
    const rows = yield* (yield* DispatchRepository).deliveriesInRegion({ region, afterId, limit: limit + 1 });
    return pageFrom(rows, limit, (row) => [row.id]) satisfies Page<Delivery>;
  }).pipe(withSpan("delivery.listRegionDeliveries"));
