/**
 * A fulfillment (shipment) of an order from one location: created `pending`, `dispatched`
 * with a carrier and tracking number (the reservation is consumed and the shipped amount
 * captured), then `delivered` by carrier tracking.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { LocationId, OrderId, ShipmentId, StoreId } from "./Ids.js";

export const ShipmentStatus = Schema.Literal("pending", "dispatched", "delivered");
export type ShipmentStatus = typeof ShipmentStatus.Type;

export const Shipment = Schema.Struct({
  id: ShipmentId,
  storeId: StoreId,
  orderId: OrderId,
  locationId: LocationId,
  status: ShipmentStatus,
  carrier: Schema.NullOr(Schema.String),
  trackingNumber: Schema.NullOr(Schema.String),
  amountMinor: Schema.Int,
  dispatchedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
});
export type Shipment = typeof Shipment.Type;

export const ShipmentWire = wireShape(Shipment);
