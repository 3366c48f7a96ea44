/**
 * What the delivery routes answer, derived from the records (docs/adding-a-module.md, 1.):
 * views that add, hide or nest fields, each with its wire shape. Nested records travel as their
 * own wire shapes (a nested field is declared through `Schema.suspend`, so the outer wire
 * shape passes it through as it is).
 */
import { Schema, Struct } from "effect";
import { retainedBriefly } from "../../kernel/RetainedBriefly.js";
import { wireShape, type WireOf } from "../../kernel/Wire.js";
import { Delivery, DeliveryStatus, DeliverySummary, DeliverySummaryWire } from "./Delivery.js";
import { ItemAvailability, MenuItemViewWire } from "./MenuItem.js";
import { Order } from "./Order.js";
import { OrderLine } from "./OrderLine.js";
import { Restaurant } from "./Restaurant.js";
import { RestaurantOrder } from "./RestaurantOrder.js";
import { RestaurantStaff } from "./RestaurantStaff.js";

/** A restaurant as discovery shows it to anyone: no merchant, creator or version; with its distance. */
export const DiscoveredRestaurantView = Schema.Struct({
  ...Struct.omit(Restaurant.fields, "merchantId", "createdBy", "version"),
  distanceM: Schema.Int,
});
export type DiscoveredRestaurantView = typeof DiscoveredRestaurantView.Type;
export const DiscoveredRestaurantWire = wireShape(DiscoveredRestaurantView);

export const RestaurantStaffWire = wireShape(RestaurantStaff);
export const ItemAvailabilityWire = wireShape(ItemAvailability);

/**
 * A published menu version with its items (and their availability now), and the restaurant's
 * currency, in which every item's and modifier's `price_minor` is counted: one currency for the
 * whole menu, since a restaurant prices (and quotes) in its one currency.
 */
export const PublishedMenuView = Schema.Struct({ restaurantId: Schema.String, version: Schema.Int, currency: Restaurant.fields.currency, items: Schema.Array(MenuItemViewWire) });
export const PublishedMenuWire = wireShape(PublishedMenuView);

const NullableDeliverySummary = Schema.suspend(
  (): Schema.Schema<DeliverySummary | null, WireOf<DeliverySummary> | null> => Schema.NullOr(DeliverySummaryWire),
).annotations({ identifier: "DeliveryOrderDeliverySummary" });

/** The customer's order: the immutable snapshot, its lines, where the workflow stands and its delivery. */
export const CustomerOrderView = Schema.Struct({
  ...Struct.omit(Order.fields, "merchantId"),
  status: RestaurantOrder.fields.status,
  paymentState: RestaurantOrder.fields.paymentState,
  prepTimeMinutes: RestaurantOrder.fields.prepTimeMinutes,
  reason: RestaurantOrder.fields.reason,
  acceptDeadline: RestaurantOrder.fields.acceptDeadline,
  version: RestaurantOrder.fields.version,
  lines: Schema.Array(wireShape(OrderLine)),
  delivery: NullableDeliverySummary,
});
export type CustomerOrderView = typeof CustomerOrderView.Type;
export const CustomerOrderWire = wireShape(CustomerOrderView);

/** The customer's order as a view, from its snapshot, lines, workflow and delivery. */
export const customerOrderView = (placed: {
  readonly order: Order;
  readonly lines: ReadonlyArray<OrderLine>;
  readonly workflow: RestaurantOrder;
  readonly delivery?: DeliverySummary | null;
}): CustomerOrderView => {
  const { merchantId: _merchant, ...order } = placed.order;
  return {
    ...order,
    status: placed.workflow.status,
    paymentState: placed.workflow.paymentState,
    prepTimeMinutes: placed.workflow.prepTimeMinutes,
    reason: placed.workflow.reason,
    acceptDeadline: placed.workflow.acceptDeadline,
    version: placed.workflow.version,
    lines: placed.lines,
    delivery: placed.delivery ?? null,
  };
};

/** A delivery as a dispatcher of its region reads it alone (everything; the read is audited). */
export const DeliveryWire = wireShape(Delivery);

/**
 * A delivery in the dispatcher's region list: no customer and no drop-off (address or precise
 * point), which only the audited single read shows.
 */
export const DispatchListDeliveryView = Schema.Struct(Struct.omit(Delivery.fields, "customerId", "dropoffLat", "dropoffLng", "dropoffAddress"));
export type DispatchListDelivery = typeof DispatchListDeliveryView.Type;
export const DispatchListDeliveryWire = wireShape(DispatchListDeliveryView);

/** A delivery as its assigned courier sees it: pickup and drop-off, not the customer's identity. */
export const CourierDeliveryView = Schema.Struct(Struct.omit(Delivery.fields, "customerId"));
export const CourierDeliveryWire = wireShape(CourierDeliveryView);

/** A courier position as tracking shows it. */
export const CourierPosition = Schema.Struct({ lat: retainedBriefly(Schema.Number), lng: retainedBriefly(Schema.Number), recordedAt: Schema.DateFromSelf });
export type CourierPosition = typeof CourierPosition.Type;
const CourierPositionWire = wireShape(CourierPosition);

/** The customer's tracking of an active delivery. */
export const TrackingView = Schema.Struct({
  deliveryId: Schema.String,
  status: DeliveryStatus,
  version: Schema.Int,
  courierPosition: Schema.suspend((): Schema.Schema<CourierPosition | null, WireOf<CourierPosition> | null> => Schema.NullOr(CourierPositionWire)).annotations({
    identifier: "DeliveryCourierPosition",
  }),
});
export const TrackingWire = wireShape(TrackingView);

/** A location batch's outcome: samples kept, and dropped (from the future or past retention). */
export const LocationBatchView = Schema.Struct({ accepted: Schema.Int, dropped: Schema.Int });
export const LocationBatchWire = wireShape(LocationBatchView);

/** The assigned courier's active job: the minimum pickup and drop-off details. */
export const ActiveJobView = Schema.Struct({
  deliveryId: Schema.String,
  status: DeliveryStatus,
  version: Schema.Int,
  pickup: Schema.Struct({ lat: Schema.Number, lng: Schema.Number }),
  dropoff: Schema.Struct({ lat: retainedBriefly(Schema.Number), lng: retainedBriefly(Schema.Number), address: retainedBriefly(Schema.String) }),
});
export const ActiveJobWire = wireShape(ActiveJobView);
