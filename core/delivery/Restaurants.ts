/**
 * Restaurant setup: create (with its own payments merchant, reference `restaurant:<id>`), add
 * and remove staff, open and close. The creator becomes staff; a new restaurant is closed until
 * opened. Any staff member runs the restaurant (adds and removes staff); a restaurant always
 * keeps at least one staff member.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { decodeCursor } from "../kernel/Cursor.js";
import { IdCursorKey, pageFrom } from "../kernel/Page.js";
import { ValidationFailed, type Forbidden, type NotFound } from "../kernel/Errors.js";
import { isCurrency } from "../kernel/Money.js";
import { Ids } from "../../ports/Ids.js";
import { RealtimeBus } from "../../ports/Realtime.js";
import { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { requireUser, staffRestaurant } from "./Access.js";
import { restaurantChannel } from "./ChannelAccess.js";
import { LastStaffMember } from "./Errors.js";
import { RestaurantId, type OpeningState, type Restaurant } from "./model/Restaurant.js";
import type { RestaurantStaff } from "./model/RestaurantStaff.js";
import { withSpan } from "../kernel/Span.js";

export interface NewRestaurant {
  readonly name: string;
  readonly lat: number;
  readonly lng: number;
  readonly serviceRadiusM: number;
  readonly currency: string;
}

/** The largest service radius accepted (50 km). */
export const maxServiceRadiusM = 50_000;

const validateRestaurant = (input: NewRestaurant): Effect.Effect<void, ValidationFailed> => {
  const errors: Array<{ path: string; message: string }> = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 200) errors.push({ path: "name", message: "must be 1 to 200 characters" });
  if (!Number.isFinite(input.lat) || input.lat < -90 || input.lat > 90) errors.push({ path: "lat", message: "must be a latitude from -90 to 90" });
  if (!Number.isFinite(input.lng) || input.lng < -180 || input.lng > 180) errors.push({ path: "lng", message: "must be a longitude from -180 to 180" });
  if (!Number.isInteger(input.serviceRadiusM) || input.serviceRadiusM < 1 || input.serviceRadiusM > maxServiceRadiusM) {
    errors.push({ path: "service_radius_m", message: `must be an integer from 1 to ${maxServiceRadiusM}` });
  }
  if (!isCurrency(input.currency)) errors.push({ path: "currency", message: "expected an ISO 4217 currency code" });
  return errors.length > 0 ? Effect.fail(new ValidationFailed({ errors })) : Effect.void;
};

/** Creates a closed restaurant whose creator is its staff, with a payments merchant of its own. */
export const createRestaurant = (principal: Principal, input: NewRestaurant) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    yield* validateRestaurant(input);
    const ids = yield* Ids;
    const id = RestaurantId.make(yield* ids.next);
    // Outside the transaction: provisioning is a call to the payments module, stable per reference.
    const merchant = yield* (yield* MerchantProvisioning).provision({ name: input.name.trim(), reference: `restaurant:${id}` });
    const at = yield* now;
    const restaurant: Restaurant = {
      id,
      name: input.name.trim(),
      lat: input.lat,
      lng: input.lng,
      serviceRadiusM: input.serviceRadiusM,
      currency: input.currency,
      openingState: "closed",
      serviceState: "active",
      merchantId: merchant.merchantId,
      menuVersion: 0,
      createdBy: userId,
      createdAt: at,
      version: 1,
    };
    const creator: RestaurantStaff = { restaurantId: id, userId, addedBy: userId, createdAt: at };
    yield* (yield* Transactions).run(Effect.flatMap(RestaurantsRepository, (r) => r.insertRestaurant(restaurant, creator)));
    return restaurant;
  }).pipe(withSpan("delivery.createRestaurant"));

/** Adds `newUserId` to the restaurant's staff (staff only); repeating it changes nothing. */
export const addStaff = (principal: Principal, restaurantId: string, newUserId: string): Effect.Effect<RestaurantStaff, Forbidden | NotFound | ValidationFailed, RestaurantsRepository | Transactions> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    if (newUserId.trim() === "") return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "user_id", message: "must not be empty" }] }));
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Under the restaurant's lock: a member removed meanwhile adds nobody.
        const restaurant = yield* staffRestaurant(restaurantId, userId, { forUpdate: true });
        const staff: RestaurantStaff = { restaurantId: restaurant.id, userId: newUserId, addedBy: userId, createdAt: yield* now };
        yield* Effect.flatMap(RestaurantsRepository, (r) => r.addStaff(staff));
        return staff;
      }),
    );
  }).pipe(withSpan("delivery.addStaff"));

/** The reason recorded when the caller gives none. */
export const defaultStaffRemovalReason = "removed by a staff member";

/**
 * Removes `staffUserId` from the restaurant's staff (staff only; a member may remove themself).
 * Idempotent: removing someone who is not staff answers `removed: false` and changes nothing.
 * Under the restaurant row's lock: the removal is refused (409 last_staff_member) when it would
 * leave the restaurant without staff, and the caller must still be staff, so two members
 * removing each other at once leave exactly one. Audited (actor and reason) in the removal's
 * transaction; after commit the removed user's `restaurant:<id>` subscriptions are re-checked.
 */
export const removeStaff = (
  principal: Principal,
  restaurantId: string,
  staffUserId: string,
  input: { readonly reason?: string | undefined } = {},
): Effect.Effect<{ removed: boolean }, Forbidden | NotFound | ValidationFailed | LastStaffMember, RestaurantsRepository | Transactions | Ids | RealtimeBus> =>
  Effect.gen(function* () {
    const actorId = yield* requireUser(principal);
    const errors: Array<{ path: string; message: string }> = [];
    if (staffUserId.trim() === "") errors.push({ path: "user_id", message: "must not be empty" });
    if (input.reason !== undefined && (input.reason.trim().length < 1 || input.reason.length > 500)) errors.push({ path: "reason", message: "must be 1 to 500 characters" });
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    const restaurants = yield* RestaurantsRepository;
    const id = yield* (yield* Ids).next;
    const removed = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const restaurant = yield* staffRestaurant(restaurantId, actorId, { forUpdate: true });
        if (!(yield* restaurants.isStaff(restaurant.id, staffUserId))) return false;
        if ((yield* restaurants.countStaff(restaurant.id)) <= 1) return yield* Effect.fail(new LastStaffMember({ restaurantId: restaurant.id }));
        yield* restaurants.removeStaff(restaurant.id, staffUserId);
        yield* restaurants.recordStaffRemoval({ id, restaurantId: restaurant.id, userId: staffUserId, actorId, reason: input.reason ?? defaultStaffRemovalReason, at: yield* now });
        return true;
      }),
    );
    if (removed) yield* announceStaffRemoved(staffUserId, restaurantId);
    return { removed };
  }).pipe(withSpan("delivery.removeStaff"));

/**
 * After commit: tells every process that `userId` lost the restaurant's channel, so their live
 * subscriptions are re-authorized and dropped. Failures are swallowed: HTTP requests and new
 * subscriptions re-check staff at the source anyway.
 */
const announceStaffRemoved = (userId: string, restaurantId: string): Effect.Effect<void, never, RealtimeBus> =>
  Effect.flatMap(RealtimeBus, (bus) => bus.publish({ type: "access_changed", userId, channel: restaurantChannel(restaurantId) })).pipe(
    Effect.timeout("2 seconds"),
    Effect.catchAllCause(() => Effect.void),
  );

/** The restaurant's staff (staff only; anyone else 404), a keyset page by user id. */
export const listStaff = (principal: Principal, restaurantId: string, page: { readonly cursor?: string | undefined; readonly limit: number }) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const restaurant = yield* staffRestaurant(restaurantId, userId);
    const after = page.cursor === undefined ? undefined : (yield* decodeCursor(IdCursorKey, page.cursor))[0];
    const rows = yield* (yield* RestaurantsRepository).listStaff({ restaurantId: restaurant.id, afterUserId: after, limit: page.limit + 1 });
    return pageFrom(rows, page.limit, (member) => [member.userId]);
  }).pipe(withSpan("delivery.listStaff"));

/** Opens or closes the restaurant (staff only); answers the restaurant as it is now. */
export const setOpening = (principal: Principal, restaurantId: string, state: OpeningState) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const restaurants = yield* RestaurantsRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const restaurant = yield* staffRestaurant(restaurantId, userId, { forUpdate: true });
        if (restaurant.openingState === state) return restaurant;
        const at = yield* now;
        yield* restaurants.setOpening(restaurant.id, state, at);
        return { ...restaurant, openingState: state, version: restaurant.version + 1 };
      }),
    );
  }).pipe(withSpan("delivery.setOpening"));
