/**
 * One delivery per accepted order (spec: Delivery): pickup and drop-off, a courier that stays
 * null until one winner is elected, and a version that every transition advances.
 */
import { DeliveryId } from "./Ids.js";
import { Schema } from "effect";
import { retainedBriefly } from "../../kernel/RetainedBriefly.js";
import { wireShape } from "../../kernel/Wire.js";
import { CourierId } from "./Courier.js";
import { Latitude, Longitude } from "./Geo.js";
import { OrderId } from "./Order.js";
import { RestaurantId } from "./Restaurant.js";

export { DeliveryId } from "./Ids.js";

/** Transition table: core/delivery/DeliveryStatus.ts. `delivered` is the spec's "completed". */
export const DeliveryStatus = Schema.Literal("pending", "assigned", "picked_up", "delivered", "cancelled");
export type DeliveryStatus = typeof DeliveryStatus.Type;

export const Delivery = Schema.Struct({
  id: DeliveryId,
  orderId: OrderId,
  restaurantId: RestaurantId,
  customerId: Schema.String,
  courierId: Schema.NullOr(CourierId),
  status: DeliveryStatus,
  version: Schema.Int.pipe(Schema.positive()),
  pickupLat: Latitude,
  pickupLng: Longitude,
  dropoffLat: retainedBriefly(Latitude),
  dropoffLng: retainedBriefly(Longitude),
  dropoffAddress: retainedBriefly(Schema.String),
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Delivery = typeof Delivery.Type;

/** What the customer's order shows: `delivery: {id, status, courier_id, version}`. */
export const DeliverySummary = Schema.Struct({
  id: DeliveryId,
  status: DeliveryStatus,
  courierId: Schema.NullOr(CourierId),
  version: Schema.Int,
});
export type DeliverySummary = typeof DeliverySummary.Type;
export const DeliverySummaryWire = wireShape(DeliverySummary);
