/**
 * The delivery module's events (spec: Events), each declared once; consumers decode envelopes
 * with `DeliveryEvent`. Tenant of every event: the restaurant. Aggregate: the order (order
 * events) or the delivery (dispatch and delivery events, with the delivery version).
 */
import { Schema } from "effect";
import { defineEvent, eventUnion } from "../kernel/EventDefinition.js";

export const OrderPlaced = defineEvent(
  "OrderPlaced",
  1,
  Schema.Struct({
    order_id: Schema.String,
    restaurant_id: Schema.String,
    customer_id: Schema.String,
    total_minor: Schema.Int,
    currency: Schema.String,
    payment_state: Schema.String,
  }),
);

export const RestaurantAcceptedOrder = defineEvent(
  "RestaurantAcceptedOrder",
  1,
  Schema.Struct({ order_id: Schema.String, restaurant_id: Schema.String, delivery_id: Schema.String, prep_time_minutes: Schema.Int }),
);

export const RestaurantRejectedOrder = defineEvent(
  "RestaurantRejectedOrder",
  1,
  Schema.Struct({ order_id: Schema.String, restaurant_id: Schema.String, reason: Schema.String }),
);

export const OrderCancelled = defineEvent(
  "OrderCancelled",
  1,
  Schema.Struct({ order_id: Schema.String, restaurant_id: Schema.String, reason: Schema.String }),
);

export const CourierOffered = defineEvent(
  "CourierOffered",
  1,
  Schema.Struct({ offer_id: Schema.String, delivery_id: Schema.String, courier_id: Schema.String, expires_at: Schema.String, round: Schema.Int }),
);

/**
 * A courier won the delivery's assignment (schema version 2): who and at which delivery version,
 * for the customer, the restaurant and the winner. It names no losing courier: each is told on
 * their own channel with CourierLostDelivery, so nobody learns which couriers were offered it.
 */
const courierAssignedFields = {
  delivery_id: Schema.String,
  order_id: Schema.String,
  courier_id: Schema.String,
  /** The won offer; null for a dispatcher's manual reassignment. */
  offer_id: Schema.NullOr(Schema.String),
  version: Schema.Int,
};

export const CourierAssigned = defineEvent("CourierAssigned", 2, Schema.Struct(courierAssignedFields));

/**
 * CourierAssigned as written before schema version 2 (with the losing couriers, routed to each of
 * them): still decoded and routed, so envelopes already in the outbox are read. Nothing writes it
 * any more; kernel maintenance removes `losing_courier_ids` from delivered ones, the channel logs
 * and dead-lettered ones (as the scrub declares: OldEventVersionRetention.ts), so it is optional:
 * a scrubbed one (a replayed dead letter) is the assignment alone, routed to no losing courier.
 */
export const CourierAssignedV1 = defineEvent(
  "CourierAssigned",
  1,
  Schema.Struct({ ...courierAssignedFields, losing_courier_ids: Schema.optional(Schema.Array(Schema.String)) }),
);

/**
 * A courier lost a delivery (spec: "losing couriers are notified"): their offer lost to the winner,
 * or the delivery they held taken by a reassignment (their accepted offer, or `offer_id` null when
 * an earlier reassignment gave it to them). Told on that courier's channel only; `version` is the
 * delivery's version of the assignment that lost it.
 */
export const CourierLostDelivery = defineEvent(
  "CourierLostDelivery",
  1,
  Schema.Struct({ delivery_id: Schema.String, courier_id: Schema.String, offer_id: Schema.NullOr(Schema.String), version: Schema.Int }),
);

/**
 * A delivery moved to another status (schema version 2): with the courier it concerns — the
 * delivery's courier when it changed, null while none was assigned — so that courier is told on
 * `courier:<id>` (a support cancellation included), not only the customer and the restaurant.
 */
export const DeliveryStatusChanged = defineEvent(
  "DeliveryStatusChanged",
  2,
  Schema.Struct({
    delivery_id: Schema.String,
    courier_id: Schema.NullOr(Schema.String),
    from: Schema.String,
    to: Schema.String,
    version: Schema.Int,
    transition_id: Schema.String,
  }),
);

/**
 * DeliveryStatusChanged as written before schema version 2 (no courier): still decoded and routed
 * (the customer's delivery channel and the restaurant's), so envelopes already in the outbox are
 * read. Nothing writes it any more.
 */
export const DeliveryStatusChangedV1 = defineEvent(
  "DeliveryStatusChanged",
  1,
  Schema.Struct({ delivery_id: Schema.String, from: Schema.String, to: Schema.String, version: Schema.Int, transition_id: Schema.String }),
);

export const DeliveryCompleted = defineEvent(
  "DeliveryCompleted",
  1,
  Schema.Struct({
    delivery_id: Schema.String,
    order_id: Schema.String,
    courier_id: Schema.String,
    version: Schema.Int,
    total_minor: Schema.Int,
    currency: Schema.String,
  }),
);

/**
 * The courier of an active delivery moved (for the customer's tracking channel). The position
 * is coarse (3 decimals, about 100 m): precise positions stay sealed at rest and are read only
 * through the audited tracking endpoint.
 */
export const CourierPositionUpdated = defineEvent(
  "CourierPositionUpdated",
  1,
  Schema.Struct({
    delivery_id: Schema.String,
    courier_id: Schema.String,
    lat: Schema.Number,
    lng: Schema.Number,
    recorded_at: Schema.String,
    /** The delivery's version when the position was sent. */
    version: Schema.Int,
  }),
);

const chatMessageSentFields = {
  delivery_id: Schema.String,
  courier_id: Schema.String,
  message_id: Schema.String,
  sender_role: Schema.Literal("customer", "courier"),
  sent_at: Schema.String,
};

/**
 * A chat message between the customer and the assigned courier of an active delivery (schema
 * version 2): which message, who sent it and when, without its body. Clients read the body through
 * GET /deliveries/:id/messages, which the chat retention bounds; the outbox and the channel logs,
 * kept longer, never hold it.
 */
export const ChatMessageSent = defineEvent("ChatMessageSent", 2, Schema.Struct(chatMessageSentFields));

/**
 * ChatMessageSent as written before schema version 2 (with the redacted body): still decoded, so
 * envelopes already in the outbox are read. Nothing writes it any more; kernel maintenance removes
 * the body from delivered ones, the channel logs and dead-lettered ones (as the scrub declares:
 * OldEventVersionRetention.ts) after the chat retention, so it is optional: a scrubbed one (a
 * replayed dead letter) is the notice version 2 is, never an empty body (bodies were 1 to 1000
 * characters).
 */
export const ChatMessageSentV1 = defineEvent(
  "ChatMessageSent",
  1,
  Schema.Struct({ ...chatMessageSentFields, body: Schema.optional(Schema.String) }),
);

/** The restaurant proposed a substitution on an order line; the customer decides (pushed to the customer). */
export const SubstitutionProposed = defineEvent(
  "SubstitutionProposed",
  1,
  Schema.Struct({
    order_id: Schema.String,
    restaurant_id: Schema.String,
    substitution_id: Schema.String,
    line_no: Schema.Int,
    replacement_name: Schema.String,
  }),
);

/**
 * Support's refund of a delivered order was made by the payment (tenant: the restaurant). A full
 * refund reversed the order's settlement (the participants are owed nothing for it); a partial one
 * is borne by the platform (`settlement_reversed` false).
 */
export const OrderRefunded = defineEvent(
  "OrderRefunded",
  1,
  Schema.Struct({
    refund_id: Schema.String,
    order_id: Schema.String,
    restaurant_id: Schema.String,
    amount_minor: Schema.Int,
    currency: Schema.String,
    settlement_reversed: Schema.Boolean,
  }),
);

export const DeliveryEvent = eventUnion(
  OrderPlaced,
  RestaurantAcceptedOrder,
  RestaurantRejectedOrder,
  OrderCancelled,
  CourierOffered,
  CourierAssigned,
  CourierAssignedV1,
  CourierLostDelivery,
  DeliveryStatusChanged,
  DeliveryStatusChangedV1,
  DeliveryCompleted,
  CourierPositionUpdated,
  ChatMessageSent,
  ChatMessageSentV1,
  SubstitutionProposed,
  OrderRefunded,
);
export type DeliveryEvent = typeof DeliveryEvent.Type;
