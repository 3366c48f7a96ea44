/** A restaurant: the tenant of the delivery module's kitchen side (spec: Resources, Restaurant). */
import { RestaurantId } from "./Ids.js";
import { Schema } from "effect";
import { Currency } from "../../kernel/Money.js";
import { wireShape } from "../../kernel/Wire.js";
import { Latitude, Longitude } from "./Geo.js";

export { RestaurantId } from "./Ids.js";

/** Whether the restaurant takes orders now (staff open and close it). */
export const OpeningState = Schema.Literal("open", "closed");
export type OpeningState = typeof OpeningState.Type;

/** Whether the platform serves the restaurant at all (support may suspend it). */
export const ServiceState = Schema.Literal("active", "suspended");
export type ServiceState = typeof ServiceState.Type;

export const Restaurant = Schema.Struct({
  id: RestaurantId,
  name: Schema.String,
  lat: Latitude,
  lng: Longitude,
  serviceRadiusM: Schema.Int.pipe(Schema.positive()),
  currency: Currency,
  openingState: OpeningState,
  serviceState: ServiceState,
  /** The payments merchant provisioned for it (reference `restaurant:<id>`). */
  merchantId: Schema.String,
  /** The current published menu version; 0 before the first menu. */
  menuVersion: Schema.Int,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
  version: Schema.Int,
});
export type Restaurant = typeof Restaurant.Type;

export const RestaurantWire = wireShape(Restaurant);
