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

/** The audit of one staff removal (dl_staff_removals, append-only): who was removed, by whom, why, when. */
export const StaffRemoval = Schema.Struct({
  id: Schema.String,
  restaurantId: RestaurantId,
  userId: Schema.String,
  actorId: Schema.String,
  reason: Schema.String,
  at: Schema.DateFromSelf,
});
export type StaffRemoval = typeof StaffRemoval.Type;
