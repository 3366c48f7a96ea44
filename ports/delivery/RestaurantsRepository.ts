/** Restaurants, their staff (and the audit of staff removals), published menus and item availability (tables dl_restaurants, dl_staff, dl_menus, dl_menu_items, dl_item_availability). */
import { Context, type Effect } from "effect";
import type { Menu } from "../../core/delivery/model/Menu.js";
import type { ItemAvailability, MenuItem, MenuItemView } from "../../core/delivery/model/MenuItem.js";
import type { OpeningState, Restaurant } from "../../core/delivery/model/Restaurant.js";
import type { RestaurantStaff, StaffRemoval } from "../../core/delivery/model/RestaurantStaff.js";

export interface RestaurantsRepository {
  readonly insertRestaurant: (restaurant: Restaurant, creator: RestaurantStaff) => Effect.Effect<void>;
  readonly findRestaurant: (id: string, options?: { readonly forUpdate?: boolean }) => Effect.Effect<Restaurant | null>;
  /** Sets the opening state and advances the version; false when it did not change. */
  readonly setOpening: (id: string, state: OpeningState, at: Date) => Effect.Effect<boolean>;
  /** Adds a staff member; false when already staff. */
  readonly addStaff: (staff: RestaurantStaff) => Effect.Effect<boolean>;
  readonly isStaff: (restaurantId: string, userId: string) => Effect.Effect<boolean>;
  /** Removes a staff member; false when they were not staff. */
  readonly removeStaff: (restaurantId: string, userId: string) => Effect.Effect<boolean>;
  /** How many staff members the restaurant has. */
  readonly countStaff: (restaurantId: string) => Effect.Effect<number>;
  /** Audits one staff removal (dl_staff_removals, append-only). */
  readonly recordStaffRemoval: (removal: StaffRemoval) => Effect.Effect<void>;
  /** The restaurant's staff removals, oldest first. */
  readonly staffRemovals: (restaurantId: string) => Effect.Effect<ReadonlyArray<StaffRemoval>>;
  /** The user ids of the restaurant's staff, in user id order (at most `limit`). */
  readonly staffOf: (restaurantId: string, limit: number) => Effect.Effect<ReadonlyArray<string>>;
  /** The restaurant's staff ordered by user id, strictly after `afterUserId`, at most `limit`. */
  readonly listStaff: (req: { readonly restaurantId: string; readonly afterUserId?: string | undefined; readonly limit: number }) => Effect.Effect<ReadonlyArray<RestaurantStaff>>;
  /**
   * Publishes `menu` with its items as the restaurant's current version, when the current
   * version is still `expectedCurrent`; false when another publication got there first.
   * Items new to the restaurant get an availability row (available as given).
   */
  readonly publishMenu: (
    menu: Menu,
    items: ReadonlyArray<MenuItem>,
    availability: ReadonlyArray<ItemAvailability>,
    expectedCurrent: number,
  ) => Effect.Effect<boolean>;
  /** The items of one version with their availability now, in publication order. */
  readonly menuItems: (restaurantId: string, version: number) => Effect.Effect<ReadonlyArray<MenuItemView>>;
  /** Sets an item's availability; false when the restaurant has no such item. */
  readonly setAvailability: (availability: ItemAvailability) => Effect.Effect<boolean>;
  /**
   * Open, active restaurants with a menu whose service zone contains `point`, nearest first
   * (then by id), after the keyset `after` (squared distance in m², id); at most `limit`.
   * Distances are those of core/delivery/model/Geo.ts `distanceMetres(point, restaurant)`.
   */
  readonly listOpenNear: (query: {
    readonly point: { readonly lat: number; readonly lng: number };
    readonly after: { readonly distanceSquared: number; readonly id: string } | null;
    readonly limit: number;
    /** The largest service radius any restaurant may have (the latitude band searched). */
    readonly maxRadiusM: number;
  }) => Effect.Effect<ReadonlyArray<{ readonly restaurant: Restaurant; readonly distanceSquared: number }>>;
  /** True when the item id belongs to the restaurant in some published version. */
  readonly hasItem: (restaurantId: string, itemId: string) => Effect.Effect<boolean>;
}
export const RestaurantsRepository = Context.GenericTag<RestaurantsRepository>("domainkit/delivery/RestaurantsRepository");
