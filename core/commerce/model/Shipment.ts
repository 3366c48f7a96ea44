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

/**
 * A shipment as its route answers it: the record with its order's currency, in which `amount_minor`
 * is counted (docs/conventions.md, HTTP). The currency is the order's, read with it, not stored twice.
 */
export const ShipmentView = Schema.Struct({ ...Shipment.fields, currency: Schema.String });
export type ShipmentView = typeof ShipmentView.Type;
export const ShipmentWire = wireShape(ShipmentView);

/** The shipment in its order's currency. */
export const shipmentView = (shipment: Shipment, order: { readonly currency: string }): ShipmentView => ({ ...shipment, currency: order.currency });
