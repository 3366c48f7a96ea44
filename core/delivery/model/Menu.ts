/** A published menu version: immutable once published (spec: Menu, MenuItem). */
import { Schema } from "effect";
import { RestaurantId } from "./Restaurant.js";

export const Menu = Schema.Struct({
  restaurantId: RestaurantId,
  version: Schema.Int.pipe(Schema.positive()),
  publishedBy: Schema.String,
  publishedAt: Schema.DateFromSelf,
});
export type Menu = typeof Menu.Type;
