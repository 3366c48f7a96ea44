/**
 * Contract kit for RestaurantsRepository: a restaurant reads back with its creator as staff;
 * staff are added once; a menu version publishes only over the expected current version (one
 * of two racing publications wins); availability changes are seen at once by the menu read;
 * discovery lists open restaurants whose zone contains the point, nearest first, in keyset pages.
 */
import { Effect } from "effect";
import { MenuItemId } from "../../../core/delivery/model/MenuItem.js";
import { RestaurantId, type Restaurant } from "../../../core/delivery/model/Restaurant.js";
import { RestaurantsRepository } from "../../../ports/delivery/RestaurantsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { pickup, seedRestaurant, uid } from "./fixtures.js";

/** The ports this kit needs. */
export type RestaurantsRepositoryKitPorts = RestaurantsRepository;

const restaurants = <A>(f: (r: RestaurantsRepository) => Effect.Effect<A>) => Effect.flatMap(RestaurantsRepository, f);

/** An open restaurant `n` at `offsetDeg` north of the pickup point, with a menu. */
const seedAt = (n: number, offsetDeg: number, radiusM = 5000) =>
  Effect.map(seedRestaurant(100 + n, { latOffsetDeg: offsetDeg, serviceRadiusM: radiusM }), ({ itemId: _itemId, ...restaurant }): Restaurant => restaurant);

/** The cases of the restaurants repository kit. */
export const restaurantsRepositoryCases: ReadonlyArray<KitCase<RestaurantsRepositoryKitPorts>> = [
  {
    name: "restaurants: a restaurant reads back with its creator as staff; staff are added once and listed by user id in keyset pages",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const found = await run(restaurants((r) => r.findRestaurant(restaurant.id)));
      t.same([found?.id, found?.menuVersion, found?.openingState], [restaurant.id, 1, "open"]);
      t.equal(await run(restaurants((r) => r.isStaff(restaurant.id, restaurant.createdBy))), true, "the creator is staff");
      t.equal(await run(restaurants((r) => r.isStaff(restaurant.id, uid("usr", 77)))), false);
      const cook = { restaurantId: restaurant.id, userId: uid("usr", 50), addedBy: restaurant.createdBy, createdAt: at(1000) };
      t.equal(await run(restaurants((r) => r.addStaff(cook))), true);
      t.equal(await run(restaurants((r) => r.addStaff(cook))), false, "already staff");
      t.same(await run(restaurants((r) => r.staffOf(restaurant.id, 10))), [restaurant.createdBy, cook.userId].sort());
      const listed = await run(restaurants((r) => r.listStaff({ restaurantId: restaurant.id, limit: 10 })));
      t.same(listed.map((member) => member.userId), [restaurant.createdBy, cook.userId].sort(), "listed by user id");
      t.same(listed.find((member) => member.userId === cook.userId), cook, "as added");
      const [first] = [restaurant.createdBy, cook.userId].sort();
      t.same((await run(restaurants((r) => r.listStaff({ restaurantId: restaurant.id, limit: 1 })))).map((m) => m.userId), [first], "at most `limit`");
      t.same((await run(restaurants((r) => r.listStaff({ restaurantId: restaurant.id, afterUserId: first, limit: 10 })))).length, 1, "strictly after `afterUserId`");
      t.same(await run(restaurants((r) => r.listStaff({ restaurantId: uid("rst", 99), limit: 10 }))), [], "another restaurant's none");
      t.equal(await run(restaurants((r) => r.findRestaurant(uid("rst", 99)))), null);
    },
  },
  {
    name: "restaurants: a staff member is removed once, the count follows, and the removal's audit reads back",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const cook = { restaurantId: restaurant.id, userId: uid("usr", 51), addedBy: restaurant.createdBy, createdAt: at(1000) };
      await run(restaurants((r) => r.addStaff(cook)));
      t.equal(await run(restaurants((r) => r.countStaff(restaurant.id))), 2);
      t.equal(await run(restaurants((r) => r.removeStaff(restaurant.id, cook.userId))), true);
      t.equal(await run(restaurants((r) => r.removeStaff(restaurant.id, cook.userId))), false, "already removed");
      t.equal(await run(restaurants((r) => r.isStaff(restaurant.id, cook.userId))), false);
      t.equal(await run(restaurants((r) => r.countStaff(restaurant.id))), 1);
      t.equal(await run(restaurants((r) => r.countStaff(uid("rst", 99)))), 0, "an unknown restaurant has none");
      const removal = { id: uid("srm", 1), restaurantId: restaurant.id, userId: cook.userId, actorId: restaurant.createdBy, reason: "left", at: at(2000) };
      await run(restaurants((r) => r.recordStaffRemoval(removal)));
      t.same(await run(restaurants((r) => r.staffRemovals(restaurant.id))), [removal]);
      t.equal(await run(restaurants((r) => r.addStaff({ ...cook, createdAt: at(3000) }))), true, "a removed member can be added again");
    },
  },
  {
    name: "restaurants: a menu version publishes only over the expected current version",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      const item = (id: number) => ({ restaurantId: restaurant.id, menuVersion: 2, id: MenuItemId.make(uid("itm", id)), name: `Dish ${id}`, priceMinor: 700, modifiers: [] });
      const menu = { restaurantId: restaurant.id, version: 2, publishedBy: restaurant.createdBy, publishedAt: at(1000) };
      const availability = [{ restaurantId: restaurant.id, itemId: MenuItemId.make(uid("itm", 20)), available: true, updatedAt: at(1000) }];
      t.equal(await run(restaurants((r) => r.publishMenu(menu, [item(20)], availability, 1))), true);
      t.equal(await run(restaurants((r) => r.publishMenu(menu, [item(21)], [], 1))), false, "a publication over a stale version loses");
      t.equal((await run(restaurants((r) => r.findRestaurant(restaurant.id))))?.menuVersion, 2);
      t.same((await run(restaurants((r) => r.menuItems(restaurant.id, 2)))).map((i) => i.name), ["Dish 20"]);
      t.same((await run(restaurants((r) => r.menuItems(restaurant.id, 1)))).map((i) => i.name), ["Margherita"], "older versions stay readable");
      t.equal(await run(restaurants((r) => r.hasItem(restaurant.id, uid("itm", 20)))), true);
      t.equal(await run(restaurants((r) => r.hasItem(restaurant.id, uid("itm", 21)))), false);
    },
  },
  {
    name: "restaurants: an availability change is seen at once by the menu read; an unknown item answers false",
    run: async (t, run) => {
      const restaurant = await run(seedRestaurant(1));
      t.equal(await run(restaurants((r) => r.setAvailability({ restaurantId: restaurant.id, itemId: restaurant.itemId, available: false, updatedAt: at(1000) }))), true);
      t.same((await run(restaurants((r) => r.menuItems(restaurant.id, 1)))).map((i) => i.available), [false]);
      t.equal(await run(restaurants((r) => r.setAvailability({ restaurantId: restaurant.id, itemId: MenuItemId.make(uid("itm", 99)), available: false, updatedAt: at(1000) }))), false);
    },
  },
  {
    name: "restaurants: discovery lists open restaurants serving the point, nearest first, in keyset pages",
    run: async (t, run) => {
      const near = await run(seedAt(1, 0.001));
      const mid = await run(seedAt(2, 0.01));
      const far = await run(seedAt(3, 0.02));
      await run(seedAt(4, 0.2, 1000)); // 22 km away with a 1 km zone: not serving the point
      const closed = await run(seedAt(5, 0.002));
      await run(restaurants((r) => r.setOpening(closed.id, "closed", at(1000))));
      const first = await run(restaurants((r) => r.listOpenNear({ point: pickup, after: null, limit: 2, maxRadiusM: 50_000 })));
      t.same(first.map((row) => row.restaurant.id), [near.id, mid.id], "nearest first, closed and out-of-zone ones left out");
      const last = first.at(-1)!;
      const second = await run(restaurants((r) => r.listOpenNear({ point: pickup, after: { distanceSquared: last.distanceSquared, id: last.restaurant.id }, limit: 2, maxRadiusM: 50_000 })));
      t.same(second.map((row) => row.restaurant.id), [far.id]);
      t.ok(first[0]!.distanceSquared < first[1]!.distanceSquared);
    },
  },
  {
    name: "restaurants: a restaurant serving the largest zone (50 km) is discovered from 44 km away, and discovery near it still answers",
    run: async (t, run) => {
      // 50,000 squared is past a 32-bit integer: the zone test must not overflow.
      const wide = await run(seedAt(6, 0.4, 50_000));
      const near = await run(seedAt(7, 0.001));
      const listed = await run(restaurants((r) => r.listOpenNear({ point: pickup, after: null, limit: 5, maxRadiusM: 50_000 })));
      t.same(listed.map((row) => row.restaurant.id), [near.id, wide.id], "the near one, then the one 44 km away");
    },
  },
];

/** Runs the restaurants repository kit. */
export const restaurantsRepositorySuite = (options: SuiteOptions<RestaurantsRepositoryKitPorts>): Promise<unknown> => runCases(options, restaurantsRepositoryCases);
