/**
 * POST /orders/quote: an expiring, server-calculated quote against the current menu version
 * (spec: Quote). A quote against an older version, or with an unavailable item, is 409
 * menu_changed with the diff; a drop-off outside the zone, a closed restaurant or invalid
 * lines are 422. A scheduled order names its slot (`scheduled_for`, checked by ScheduledSlot.ts).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { DeliverySettings } from "../../ports/delivery/DeliverySettings.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { notFound, requireUser } from "./Access.js";
import { MenuChanged, OutsideServiceZone, RestaurantClosed } from "./Errors.js";
import { menuDiff } from "./MenuDiff.js";
import { distanceMetres } from "./model/Geo.js";
import { QuoteId, type Quote } from "./model/Quote.js";
import type { Restaurant } from "./model/Restaurant.js";
import { priceLines, totalsOf, type LineRequest } from "./Pricing.js";
import { withSpan } from "../kernel/Span.js";
import { validateSlot } from "./ScheduledSlot.js";

export interface QuoteRequest {
  readonly restaurantId: string;
  readonly menuVersion: number;
  readonly lines: ReadonlyArray<LineRequest>;
  readonly dropoff: { readonly lat: number; readonly lng: number; readonly address: string };
  /** A delivery slot (ScheduledSlot.ts); omitted or null: as soon as possible. */
  readonly scheduledFor?: Date | null;
}

/** Fails MenuChanged when `version` is not current or a requested item is unavailable now. */
export const checkMenu = (restaurant: Restaurant, version: number, itemIds: ReadonlyArray<string>) =>
  Effect.gen(function* () {
    const restaurants = yield* RestaurantsRepository;
    const currentItems = yield* restaurants.menuItems(restaurant.id, restaurant.menuVersion);
    // Only versions 1 to the current one exist: another has no items, and is not sent to the store
    // (Postgres refuses to compare its integer column with 2^31).
    const published = Number.isInteger(version) && version >= 1 && version < restaurant.menuVersion;
    const quotedItems = version === restaurant.menuVersion ? currentItems : published ? yield* restaurants.menuItems(restaurant.id, version) : [];
    const diff = menuDiff({ requestedItemIds: itemIds, quotedVersion: version, quotedItems, currentVersion: restaurant.menuVersion, currentItems, currency: restaurant.currency });
    if (diff !== null) return yield* Effect.fail(new MenuChanged({ diff, detail: "the menu changed since this version; see diff" }));
    return currentItems;
  });

const validateDropoff = (dropoff: QuoteRequest["dropoff"]): Effect.Effect<void, ValidationFailed> => {
  const errors: Array<{ path: string; message: string }> = [];
  if (!Number.isFinite(dropoff.lat) || dropoff.lat < -90 || dropoff.lat > 90) errors.push({ path: "dropoff.lat", message: "must be from -90 to 90" });
  if (!Number.isFinite(dropoff.lng) || dropoff.lng < -180 || dropoff.lng > 180) errors.push({ path: "dropoff.lng", message: "must be from -180 to 180" });
  if (dropoff.address.trim().length < 1 || dropoff.address.length > 500) errors.push({ path: "dropoff.address", message: "must be 1 to 500 characters" });
  return errors.length > 0 ? Effect.fail(new ValidationFailed({ errors })) : Effect.void;
};

/** Quotes the lines for the caller (a customer). */
export const quoteOrder = (principal: Principal, request: QuoteRequest) =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    yield* validateDropoff(request.dropoff);
    const quotedAt = yield* now;
    const scheduledFor = request.scheduledFor === undefined || request.scheduledFor === null ? null : yield* validateSlot(request.scheduledFor, quotedAt);
    const restaurants = yield* RestaurantsRepository;
    const restaurant = yield* restaurants.findRestaurant(request.restaurantId);
    if (restaurant === null) return yield* Effect.fail(notFound("restaurant"));
    if (restaurant.openingState !== "open" || restaurant.serviceState !== "active" || restaurant.menuVersion === 0) {
      return yield* Effect.fail(new RestaurantClosed({ restaurantId: restaurant.id, detail: "the restaurant is not taking orders" }));
    }
    const distanceM = distanceMetres(request.dropoff, restaurant);
    if (distanceM > restaurant.serviceRadiusM) {
      return yield* Effect.fail(
        new OutsideServiceZone({ distanceM: Math.round(distanceM), serviceRadiusM: restaurant.serviceRadiusM, detail: "the drop-off is outside the restaurant's service zone" }),
      );
    }
    const items = yield* checkMenu(restaurant, request.menuVersion, request.lines.map((l) => l.itemId));
    const lines = yield* priceLines(request.lines, items);
    const totals = totalsOf(lines, distanceM);
    const settings = yield* DeliverySettings;
    const at = yield* now;
    const quote: Quote = {
      id: QuoteId.make(yield* (yield* Ids).next),
      customerId,
      restaurantId: restaurant.id,
      menuVersion: restaurant.menuVersion,
      lines,
      dropoffLat: request.dropoff.lat,
      dropoffLng: request.dropoff.lng,
      dropoffAddress: request.dropoff.address.trim(),
      ...totals,
      currency: restaurant.currency,
      scheduledFor,
      expiresAt: new Date(at.getTime() + settings.quoteTtlSeconds * 1000),
      createdAt: at,
    };
    yield* (yield* Transactions).run(Effect.flatMap(OrdersRepository, (orders) => orders.insertQuote(quote)));
    return quote;
  }).pipe(withSpan("delivery.quoteOrder"));
