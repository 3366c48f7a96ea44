/**
 * The e-commerce module's events (spec, Events), declared once; consumers decode envelopes with
 * `CommerceEvent`. Tenant = store, aggregate = the order (reservation events carry the order too).
 */
import { Schema } from "effect";
import { defineEvent, eventUnion } from "../kernel/EventDefinition.js";
import { FulfillmentTaskId, LocationId, OrderId, ReservationId, ReturnId, ShipmentId, VariantId } from "./model/Ids.js";

/** Checkout: an order was written (pending) with its lines and reservations, in one transaction. */
export const OrderPlaced = defineEvent(
  "OrderPlaced",
  1,
  Schema.Struct({ order_id: OrderId, customer_id: Schema.NullOr(Schema.String), total_minor: Schema.Int, currency: Schema.String }),
);

/** Checkout → fulfillment, e-mail, analytics: the payment is authorized and the stock committed. */
export const OrderConfirmed = defineEvent(
  "OrderConfirmed",
  1,
  Schema.Struct({
    order_id: OrderId,
    customer_id: Schema.NullOr(Schema.String),
    total_minor: Schema.Int,
    currency: Schema.String,
    // null for an order whose total is 0: nothing was authorized (docs/decisions.md).
    payment_intent_ref: Schema.NullOr(Schema.String),
  }),
);

/** Inventory worker → order workflow: an active reservation passed its expiry and was released (once). */
export const ReservationExpired = defineEvent(
  "ReservationExpired",
  1,
  Schema.Struct({
    reservation_id: ReservationId,
    order_id: OrderId,
    variant_id: VariantId,
    location_id: LocationId,
    quantity: Schema.Int,
  }),
);

/** What a dispatched shipment's event names, in every version. */
const shipmentDispatchedFields = {
  shipment_id: ShipmentId,
  order_id: OrderId,
  location_id: LocationId,
  carrier: Schema.String,
  tracking_number: Schema.String,
};

/**
 * Fulfillment → notifications, order projection: a shipment left a location. Version 1 also
 * stated `captured_minor` (the order's total on its last shipment) before the capture, which runs
 * after the dispatch's commit, was recorded; it is kept here only so that envelopes already
 * published still decode. The amount captured is OrderCaptured's.
 */
export const ShipmentDispatchedV1 = defineEvent("ShipmentDispatched", 1, Schema.Struct({ ...shipmentDispatchedFields, captured_minor: Schema.Int }));

/** Fulfillment → notifications, order projection: a shipment left a location (what the dispatch committed). */
export const ShipmentDispatched = defineEvent("ShipmentDispatched", 2, Schema.Struct(shipmentDispatchedFields));

/** Fulfillment → order projection, reports: the order's capture is recorded (published by the transaction that records it). */
export const OrderCaptured = defineEvent("OrderCaptured", 1, Schema.Struct({ order_id: OrderId, captured_minor: Schema.Int, currency: Schema.String }));

/** The order was cancelled: its authorization voided (or capture refunded) and its stock released. */
export const OrderCancelled = defineEvent(
  "OrderCancelled",
  1,
  Schema.Struct({ order_id: OrderId, reason: Schema.String }),
);

/**
 * Fulfillment → the store's warehouse operators: an order's fulfillment task changed hands (taken by
 * an operator, assigned by the owner, or released: `assignee_id` null). Published on the store's
 * channels only (fulfillment and owners'; never the order's: its customer does not learn who holds
 * the order), with the task,
 * its order and its assignee and nothing more (the owner's reason stays on the order's timeline).
 * The aggregate is the order, whose version the move does not change: a task's moves are ordered
 * by the channel's offsets.
 */
export const FulfillmentTaskAssigned = defineEvent(
  "FulfillmentTaskAssigned",
  1,
  Schema.Struct({ task_id: FulfillmentTaskId, order_id: OrderId, assignee_id: Schema.NullOr(Schema.String) }),
);

/**
 * Fulfillment → the store's warehouse operators: an order's fulfillment task opened (the order was
 * confirmed) or is done (dispatched, or its cancellation requested). Published on the store's
 * fulfillment channel with what an operator's task list shows (task, order, status) and nothing
 * of the order (no customer, total or payment); its actor is always the system, never the customer
 * or the staff member whose action closed it.
 */
export const FulfillmentTaskStatusChanged = defineEvent(
  "FulfillmentTaskStatusChanged",
  1,
  Schema.Struct({ task_id: FulfillmentTaskId, order_id: OrderId, status: Schema.Literal("open", "done") }),
);

/**
 * Fulfillment → warehouse operators: a task left an operator's list, trimmed to that fact. Taken or
 * assigned out of the unassigned ones (`operator_id` null: every operator's list), or reassigned
 * away from its holder (`operator_id`: that holder, told on their own channel). It names neither
 * who holds the task now nor who moved it (actor: the system); whoever now holds it is told by the
 * FulfillmentTaskAssigned published after it in the same transaction.
 */
export const FulfillmentTaskLeftList = defineEvent(
  "FulfillmentTaskLeftList",
  1,
  Schema.Struct({ task_id: FulfillmentTaskId, operator_id: Schema.NullOr(Schema.String) }),
);

/**
 * Returns → support, order projection: the payment refused a return's refund (attempt `attempt`);
 * the return is `refund_failed` until support requests it again.
 */
export const ReturnRefundFailed = defineEvent(
  "ReturnRefundFailed",
  1,
  Schema.Struct({ return_id: ReturnId, order_id: OrderId, amount_minor: Schema.Int, currency: Schema.String, attempt: Schema.Int }),
);

export const CommerceEvent = eventUnion(
  OrderPlaced,
  OrderConfirmed,
  ReservationExpired,
  ShipmentDispatchedV1,
  ShipmentDispatched,
  OrderCaptured,
  OrderCancelled,
  FulfillmentTaskAssigned,
  FulfillmentTaskStatusChanged,
  FulfillmentTaskLeftList,
  ReturnRefundFailed,
);
export type CommerceEvent = typeof CommerceEvent.Type;
