/**
 * One item of one published menu version, with its price and modifiers (immutable). An item id
 * is stable across versions (a new version may keep an item by naming its id), so a quote made
 * against an older version can be compared with the current one (the `diff` of menu_changed).
 * Availability is not part of the version: it is toggled at once (ItemAvailability).
 */
import { MenuItemId } from "./Ids.js";
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { RestaurantId } from "./Restaurant.js";

export { MenuItemId } from "./Ids.js";

/** A priced option of an item (extra cheese). Stored as JSON with the item. */
export const Modifier = Schema.Struct({
  id: Schema.String,
  name: Schema.String,
  price_minor: Schema.Int.pipe(Schema.nonNegative()),
});
export type Modifier = typeof Modifier.Type;

export const MenuItem = Schema.Struct({
  restaurantId: RestaurantId,
  menuVersion: Schema.Int.pipe(Schema.positive()),
  id: MenuItemId,
  name: Schema.String,
  priceMinor: Schema.Int.pipe(Schema.nonNegative()),
  modifiers: Schema.Array(Modifier),
});
export type MenuItem = typeof MenuItem.Type;

/** Whether an item can be ordered now; toggled by staff, seen by the next quote. */
export const ItemAvailability = Schema.Struct({
  restaurantId: RestaurantId,
  itemId: MenuItemId,
  available: Schema.Boolean,
  updatedAt: Schema.DateFromSelf,
});
export type ItemAvailability = typeof ItemAvailability.Type;

/** An item as the menu shows it: the version's item with its availability now. */
export const MenuItemView = Schema.Struct({ ...MenuItem.fields, available: Schema.Boolean });
export type MenuItemView = typeof MenuItemView.Type;
export const MenuItemViewWire = wireShape(MenuItemView);
