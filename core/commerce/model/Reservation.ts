/**
 * An expiring claim on stock (spec: inventory_reservations), unique per (order, variant,
 * location). `active` while checkout is in flight (released when `expiresAt` passes), `committed`
 * once the payment is authorized (held until dispatch), `consumed` by a dispatch, `released`
 * by expiry, decline or cancellation. Only a reservation still holding stock can be released,
 * and only once: every change is a conditional update on `status`.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { LocationId, OrderId, ReservationId, StoreId, VariantId } from "./Ids.js";

export const ReservationStatus = Schema.Literal("active", "committed", "consumed", "released");
export type ReservationStatus = typeof ReservationStatus.Type;

export const Reservation = Schema.Struct({
  id: ReservationId,
  storeId: StoreId,
  orderId: OrderId,
  variantId: VariantId,
  locationId: LocationId,
  quantity: Schema.Int,
  status: ReservationStatus,
  expiresAt: Schema.DateFromSelf,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Reservation = typeof Reservation.Type;

export const ReservationWire = wireShape(Reservation);
