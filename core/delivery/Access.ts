/**
 * Object-level authorization of the delivery module (spec: Authentication 1-3): restaurant
 * resources bind to the restaurant's staff, courier resources to the courier, orders to their
 * customer. Anything the caller may not see answers NotFound exactly like an unknown id.
 */
import { Effect } from "effect";
import { Forbidden, NotFound } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import type { Courier } from "./model/Courier.js";
import type { Restaurant } from "./model/Restaurant.js";

/** The caller as a user id; only signed-in users act in the delivery module. */
export const requireUser = (principal: Principal): Effect.Effect<string, Forbidden> =>
  principal.kind === "user"
    ? Effect.succeed(principal.userId)
    : Effect.fail(new Forbidden({ detail: "Only a signed-in user can use the delivery module." }));

/** A NotFound that says only what kind of thing was not found. */
export const notFound = (resource: string): NotFound => new NotFound({ resource, detail: `No such ${resource}.` });

/**
 * The restaurant, when `userId` is its staff; NotFound otherwise (or when it is unknown). With
 * `forUpdate` the restaurant row is locked first and staff is checked under the lock, so a staff
 * change committed meanwhile (a removal) is seen.
 */
export const staffRestaurant = (
  restaurantId: string,
  userId: string,
  options?: { readonly forUpdate?: boolean },
): Effect.Effect<Restaurant, NotFound, RestaurantsRepository> =>
  Effect.gen(function* () {
    const restaurants = yield* RestaurantsRepository;
    if (options?.forUpdate === true) {
      const locked = yield* restaurants.findRestaurant(restaurantId, options);
      if (locked === null || !(yield* restaurants.isStaff(restaurantId, userId))) return yield* Effect.fail(notFound("restaurant"));
      return locked;
    }
    if (!(yield* restaurants.isStaff(restaurantId, userId))) return yield* Effect.fail(notFound("restaurant"));
    const restaurant = yield* restaurants.findRestaurant(restaurantId, options);
    if (restaurant === null) return yield* Effect.fail(notFound("restaurant"));
    return restaurant;
  });

/** The caller's courier registration; NotFound(`resource`) when the caller is no courier. */
export const callerCourier = (userId: string, resource: string): Effect.Effect<Courier, NotFound, DispatchRepository> =>
  Effect.flatMap(DispatchRepository, (dispatch) => dispatch.findCourierByUser(userId)).pipe(
    Effect.flatMap((courier) => (courier === null ? Effect.fail(notFound(resource)) : Effect.succeed(courier))),
  );
