/** A user who works for a restaurant: sees its menus and incoming orders (spec: Authentication 2). */
import { Schema } from "effect";
import { RestaurantId } from "./Restaurant.js";

export const RestaurantStaff = Schema.Struct({
  restaurantId: RestaurantId,
  userId: Schema.String,
  addedBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type RestaurantStaff = typeof RestaurantStaff.Type;
