/**
 * Restaurant setup: create (with its own payments merchant, reference `restaurant:<id>`), add
 * staff, open and close. The creator becomes staff; a new restaurant is closed until opened.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed, type Forbidden, type NotFound } from "../kernel/Errors.js";
import { isCurrency } from "../kernel/Money.js";
import { Ids } from "../../ports/Ids.js";
import { MerchantProvisioning } from "../../ports/MerchantProvisioning.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { requireUser, staffRestaurant } from "./Access.js";
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
    const restaurant = yield* staffRestaurant(restaurantId, userId);
    const staff: RestaurantStaff = { restaurantId: restaurant.id, userId: newUserId, addedBy: userId, createdAt: yield* now };
    yield* (yield* Transactions).run(Effect.flatMap(RestaurantsRepository, (r) => r.addStaff(staff)));
    return staff;
  }).pipe(withSpan("delivery.addStaff"));

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
