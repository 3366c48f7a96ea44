/**
 * The workflow of one order: its payment and the restaurant's answer (spec: States). The only
 * mutable part of an order; every change advances `version` under a conditional update.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { DeliveryId, OrderId } from "./Ids.js";
import { RestaurantId } from "./Restaurant.js";

/** The order's kitchen workflow (transition table: core/delivery/OrderStatus.ts). */
export const OrderStatus = Schema.Literal("payment_pending", "authorized", "accepted", "rejected", "cancelled", "completed");
export type OrderStatus = typeof OrderStatus.Type;

/** Where the customer's money stands (transition table: core/delivery/OrderStatus.ts). */
export const PaymentState = Schema.Literal("pending", "authorized", "declined", "capture_pending", "captured", "void_pending", "voided");
export type PaymentState = typeof PaymentState.Type;

export const RestaurantOrder = Schema.Struct({
  orderId: OrderId,
  restaurantId: RestaurantId,
  customerId: Schema.String,
  status: OrderStatus,
  paymentState: PaymentState,
  paymentId: Schema.NullOr(Schema.String),
  prepTimeMinutes: Schema.NullOr(Schema.Int),
  /** Why the restaurant rejected or the order was cancelled. */
  reason: Schema.NullOr(Schema.String),
  acceptDeadline: Schema.DateFromSelf,
  /** The order's delivery slot (a copy of the snapshot's, for the kitchen's list); null: as soon as possible. */
  scheduledFor: Schema.NullOr(Schema.DateFromSelf),
  deliveryId: Schema.NullOr(DeliveryId),
  version: Schema.Int,
  updatedAt: Schema.DateFromSelf,
});
export type RestaurantOrder = typeof RestaurantOrder.Type;
export const RestaurantOrderWire = wireShape(RestaurantOrder);
