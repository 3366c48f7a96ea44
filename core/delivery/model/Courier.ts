/** A courier: a user who opted into offers (spec: Actors). `id` is the `courier_id` deliveries carry. */
import { CourierId } from "./Ids.js";
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { Latitude, Longitude } from "./Geo.js";
import { retainedBriefly } from "../../kernel/RetainedBriefly.js";

export { CourierId } from "./Ids.js";

export const Courier = Schema.Struct({
  id: CourierId,
  userId: Schema.String,
  name: Schema.String,
  online: Schema.Boolean,
  /** The latest location sample (approximate; the operational source of dispatch distance). */
  lat: retainedBriefly(Schema.NullOr(Latitude)),
  lng: retainedBriefly(Schema.NullOr(Longitude)),
  locatedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
});
export type Courier = typeof Courier.Type;
export const CourierWire = wireShape(Courier);
