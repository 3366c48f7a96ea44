/**
 * The checkout aggregate (spec: orders). Never deleted; moved through its states
 * (core/commerce/OrderStatus.ts) by conditional updates on `status` and `version`.
 * `paymentIntentRef` is the gateway payment id once known (unique). The shipping address is
 * kept minimized (docs/decisions.md, E-commerce).
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { CartId, OrderId, OrderLineId, StoreId, TimelineEntryId, VariantId } from "./Ids.js";

export const OrderStatus = Schema.Literal(
  "pending",
  "payment_pending",
  "confirmed",
  "failed",
  "expired",
  "cancellation_requested",
  "cancelled",
  "dispatched",
);
export type OrderStatus = typeof OrderStatus.Type;

/** The minimized shipping address (one-word keys, so its JSON is the same in storage and on the wire). */
export const ShippingAddress = Schema.Struct({
  name: Schema.String,
  line1: Schema.String,
  line2: Schema.NullOr(Schema.String),
  city: Schema.String,
  postcode: Schema.String,
  country: Schema.String,
});
export type ShippingAddress = typeof ShippingAddress.Type;

export const Order = Schema.Struct({
  id: OrderId,
  storeId: StoreId,
  customerId: Schema.NullOr(Schema.String),
  cartId: CartId,
  status: OrderStatus,
  currency: Schema.String,
  subtotalMinor: Schema.Int,
  discountMinor: Schema.Int,
  taxMinor: Schema.Int,
  totalMinor: Schema.Int,
  paymentIntentRef: Schema.NullOr(Schema.String),
  email: Schema.NullOr(Schema.String),
  shippingAddress: ShippingAddress,
  version: Schema.Int,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Order = typeof Order.Type;

export const OrderWire = wireShape(Order);

/** One immutable purchase line (spec: order_lines); the database refuses UPDATE and DELETE. */
export const OrderLine = Schema.Struct({
  id: OrderLineId,
  storeId: StoreId,
  orderId: OrderId,
  variantId: VariantId,
  sku: Schema.String,
  quantity: Schema.Int,
  unitPriceMinor: Schema.Int,
  discountMinor: Schema.Int,
  taxMinor: Schema.Int,
  totalMinor: Schema.Int,
});
export type OrderLine = typeof OrderLine.Type;

export const OrderLineWire = wireShape(OrderLine);

/** One entry of an order's timeline (append-only): a state change, payment event, shipment or return. */
export const OrderTimelineEntry = Schema.Struct({
  id: TimelineEntryId,
  storeId: StoreId,
  orderId: OrderId,
  kind: Schema.String,
  actorId: Schema.String,
  detail: Schema.Unknown,
  createdAt: Schema.DateFromSelf,
});
export type OrderTimelineEntry = typeof OrderTimelineEntry.Type;

export const OrderTimelineEntryWire = wireShape(OrderTimelineEntry);

/**
 * An order as its owner reads it: the first page of its timeline (GET /v1/orders/:id/timeline
 * with no cursor) and that list's cursor of the next page, null when the page is all of it.
 */
export const OrderView = Schema.Struct({
  ...Order.fields,
  lines: Schema.Array(OrderLineWire),
  timeline: Schema.Array(OrderTimelineEntryWire),
  timelineNextCursor: Schema.NullOr(Schema.String),
});
export type OrderView = typeof OrderView.Type;
export const OrderViewWire = wireShape(OrderView);
