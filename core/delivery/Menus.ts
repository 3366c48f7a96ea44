/**
 * Menus: staff publish a new immutable version (items with prices and modifiers; an item keeps
 * its id across versions when the request names it) and toggle item availability, which the
 * next quote sees at once.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import type { Currency } from "../kernel/Money.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { notFound, requireUser, staffRestaurant } from "./Access.js";
import { MenuPublishConflict } from "./Errors.js";
import type { Menu } from "./model/Menu.js";
import { MenuItemId, type ItemAvailability, type MenuItem, type MenuItemView, type Modifier } from "./model/MenuItem.js";
import { withSpan } from "../kernel/Span.js";

export interface NewMenuItem {
  /** An existing item id of this restaurant keeps the item's identity across versions. */
  readonly id?: string;
  readonly name: string;
  readonly priceMinor: number;
  readonly available?: boolean;
  readonly modifiers?: ReadonlyArray<{ readonly id?: string; readonly name: string; readonly priceMinor: number }>;
}

/** A published version and its items, priced in the restaurant's currency (every item and modifier). */
export interface PublishedMenu {
  readonly version: number;
  readonly currency: Currency;
  readonly items: ReadonlyArray<MenuItemView>;
}

const maxPrice = 10_000_000;

const validateItems = (items: ReadonlyArray<NewMenuItem>): Effect.Effect<void, ValidationFailed> => {
  const errors: Array<{ path: string; message: string }> = [];
  if (items.length === 0 || items.length > 500) errors.push({ path: "items", message: "must have 1 to 500 items" });
  const ids = new Set<string>();
  items.forEach((item, i) => {
    if (item.name.trim().length < 1 || item.name.length > 200) errors.push({ path: `items.${i}.name`, message: "must be 1 to 200 characters" });
    if (!Number.isInteger(item.priceMinor) || item.priceMinor < 0 || item.priceMinor > maxPrice) {
      errors.push({ path: `items.${i}.price_minor`, message: `must be an integer from 0 to ${maxPrice}` });
    }
    if (item.id !== undefined) {
      if (ids.has(item.id)) errors.push({ path: `items.${i}.id`, message: "appears twice" });
      ids.add(item.id);
    }
    // A quote prices a chosen modifier by its id: within one item, an id names one modifier.
    const modifierIds = new Set<string>();
    (item.modifiers ?? []).forEach((m, j) => {
      if (m.name.trim().length < 1 || m.name.length > 200) errors.push({ path: `items.${i}.modifiers.${j}.name`, message: "must be 1 to 200 characters" });
      if (m.id !== undefined) {
        if (modifierIds.has(m.id)) errors.push({ path: `items.${i}.modifiers.${j}.id`, message: "appears twice in this item" });
        modifierIds.add(m.id);
      }
      if (!Number.isInteger(m.priceMinor) || m.priceMinor < 0 || m.priceMinor > maxPrice) {
        errors.push({ path: `items.${i}.modifiers.${j}.price_minor`, message: `must be an integer from 0 to ${maxPrice}` });
      }
    });
  });
  return errors.length > 0 ? Effect.fail(new ValidationFailed({ errors })) : Effect.void;
};

/** Publishes the next menu version of the restaurant (staff only). */
export const publishMenu = (principal: Principal, restaurantId: string, items: ReadonlyArray<NewMenuItem>) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    yield* validateItems(items);
    const ids = yield* Ids;
    const restaurants = yield* RestaurantsRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const restaurant = yield* staffRestaurant(restaurantId, userId, { forUpdate: true });
        const at = yield* now;
        const version = restaurant.menuVersion + 1;
        const menu: Menu = { restaurantId: restaurant.id, version, publishedBy: userId, publishedAt: at };
        const rows: MenuItem[] = [];
        const availability: ItemAvailability[] = [];
        for (const [i, item] of items.entries()) {
          let id: MenuItemId;
          if (item.id !== undefined) {
            if (!(yield* restaurants.hasItem(restaurant.id, item.id))) {
              return yield* Effect.fail(new ValidationFailed({ errors: [{ path: `items.${i}.id`, message: "no such item of this restaurant" }] }));
            }
            id = MenuItemId.make(item.id);
          } else id = MenuItemId.make(yield* ids.next);
          const modifiers: Modifier[] = [];
          for (const m of item.modifiers ?? []) modifiers.push({ id: m.id ?? (yield* ids.next), name: m.name.trim(), price_minor: m.priceMinor });
          rows.push({ restaurantId: restaurant.id, menuVersion: version, id, name: item.name.trim(), priceMinor: item.priceMinor, modifiers });
          if (item.id === undefined || item.available !== undefined) {
            availability.push({ restaurantId: restaurant.id, itemId: id, available: item.available ?? true, updatedAt: at });
          }
        }
        const published = yield* restaurants.publishMenu(menu, rows, availability, restaurant.menuVersion);
        if (!published) return yield* Effect.fail(new MenuPublishConflict({ restaurantId, detail: "another menu was published meanwhile" }));
        const menuItems = yield* restaurants.menuItems(restaurant.id, version);
        return { version, currency: restaurant.currency, items: menuItems } satisfies PublishedMenu;
      }),
    );
  }).pipe(withSpan("delivery.publishMenu"));

/** Sets an item's availability (staff only); the next quote sees it. */
export const setItemAvailability = (principal: Principal, restaurantId: string, itemId: string, available: boolean) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const restaurants = yield* RestaurantsRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const restaurant = yield* staffRestaurant(restaurantId, userId);
        const row: ItemAvailability = { restaurantId: restaurant.id, itemId: MenuItemId.make(itemId), available, updatedAt: yield* now };
        if (!(yield* restaurants.setAvailability(row))) return yield* Effect.fail(notFound("menu_item"));
        return row;
      }),
    );
  }).pipe(withSpan("delivery.setItemAvailability"));

/** The restaurant's current menu (public: customers read it to quote). */
export const currentMenu = (restaurantId: string) =>
  Effect.gen(function* () {
    const restaurants = yield* RestaurantsRepository;
    const restaurant = yield* restaurants.findRestaurant(restaurantId);
    if (restaurant === null || restaurant.menuVersion === 0) return yield* Effect.fail(notFound("menu"));
    return {
      version: restaurant.menuVersion,
      currency: restaurant.currency,
      items: yield* restaurants.menuItems(restaurant.id, restaurant.menuVersion),
    } satisfies PublishedMenu;
  }).pipe(withSpan("delivery.currentMenu"));
