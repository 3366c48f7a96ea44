/**
 * Realtime access for the delivery module (spec: Authentication 1-3; issue: Roles):
 *   - `restaurant:<id>`: the restaurant's incoming orders and their deliveries — its staff only;
 *   - `courier:<id>`: the courier's offers, assignments, lost deliveries and the status changes of
 *     their deliveries (a support cancellation included) — that courier only; nothing carrying the
 *     order's money (DeliveryCompleted does not go there);
 *   - `delivery:<id>`: status and coarse courier positions of one delivery — its customer only,
 *     while the delivery is not finished (positions flow only while it is assigned or picked up).
 * A version-1 DeliveryStatusChanged (written before version 2) names no courier: the module's own
 * realtime consumer reads the delivery and tells its courier ({@link oldStatusChangeCourierChannels}).
 * Each authorizer is the HTTP rule (an unknown object and another's look the same: refused), is
 * re-run when the host rechecks access, and fails closed on any error.
 */
import { Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import type { Principal } from "../../ports/Principal.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import {
  ChatMessageSent,
  CourierAssigned,
  CourierLostDelivery,
  CourierOffered,
  CourierPositionUpdated,
  DeliveryCompleted,
  DeliveryStatusChanged,
  DeliveryStatusChangedV1,
  OrderCancelled,
  OrderPlaced,
  OrderRefunded,
  RestaurantAcceptedOrder,
  RestaurantRejectedOrder,
  SubstitutionProposed,
} from "./Events.js";

export const restaurantChannel = (restaurantId: string): string => `restaurant:${restaurantId}`;
export const courierChannel = (courierId: string): string => `courier:${courierId}`;
export const deliveryChannel = (deliveryId: string): string => `delivery:${deliveryId}`;

const failClosed = <R>(decision: Effect.Effect<boolean, unknown, R>): Effect.Effect<boolean, never, R> =>
  decision.pipe(Effect.catchAllCause(() => Effect.succeed(false)));

/** True when the principal is staff of the restaurant. */
export const maySubscribeToRestaurant = (principal: Principal, restaurantId: string): Effect.Effect<boolean, never, RestaurantsRepository> =>
  principal.kind !== "user" ? Effect.succeed(false) : failClosed(Effect.flatMap(RestaurantsRepository, (r) => r.isStaff(restaurantId, principal.userId)));

/** True when the principal is that courier. */
export const maySubscribeToCourier = (principal: Principal, courierId: string): Effect.Effect<boolean, never, DispatchRepository> =>
  principal.kind !== "user"
    ? Effect.succeed(false)
    : failClosed(
        Effect.map(
          Effect.flatMap(DispatchRepository, (d) => d.findCourierByUser(principal.userId)),
          (courier) => courier !== null && courier.id === courierId,
        ),
      );

/** True when the principal is the delivery's customer and the delivery is not finished. */
export const maySubscribeToDelivery = (principal: Principal, deliveryId: string): Effect.Effect<boolean, never, DispatchRepository> =>
  principal.kind !== "user"
    ? Effect.succeed(false)
    : failClosed(
        Effect.map(
          Effect.flatMap(DispatchRepository, (d) => d.findDelivery(deliveryId)),
          (delivery) => delivery !== null && delivery.customerId === principal.userId && delivery.status !== "delivered" && delivery.status !== "cancelled",
        ),
      );

const restaurantEvents = new Set<string>([OrderPlaced, RestaurantAcceptedOrder, RestaurantRejectedOrder, OrderCancelled, SubstitutionProposed, OrderRefunded].map((d) => d.type));
const deliveryEvents = new Set<string>([CourierAssigned, DeliveryStatusChanged, DeliveryCompleted].map((d) => d.type));

// Routing reads only the ids of an event (consumers decode the whole of it).
const idsOf = Schema.decodeUnknownOption(
  Schema.Struct({
    restaurant_id: Schema.optional(Schema.String),
    delivery_id: Schema.optional(Schema.String),
    // Null in a DeliveryStatusChanged of a delivery no courier was assigned to.
    courier_id: Schema.optional(Schema.NullOr(Schema.String)),
    losing_courier_ids: Schema.optional(Schema.Array(Schema.String)),
  }),
);

/** The channels of a delivery module event; none for other events. */
export const deliveryChannelsFor = (event: EventEnvelope): ReadonlyArray<string> => {
  const ids = Option.getOrNull(idsOf(event.data));
  if (ids === null) return [];
  if (restaurantEvents.has(event.type)) return ids.restaurant_id === undefined ? [] : [restaurantChannel(ids.restaurant_id)];
  // An offer, or the notice of a lost delivery: that courier's channel only.
  if (event.type === CourierOffered.type || event.type === CourierLostDelivery.type) return ids.courier_id == null ? [] : [courierChannel(ids.courier_id)];
  if (event.type === CourierPositionUpdated.type) return ids.delivery_id === undefined ? [] : [deliveryChannel(ids.delivery_id)];
  // A chat message: the customer's delivery channel and the assigned courier's channel, nobody else.
  if (event.type === ChatMessageSent.type) {
    return ids.delivery_id === undefined || ids.courier_id == null ? [] : [deliveryChannel(ids.delivery_id), courierChannel(ids.courier_id)];
  }
  if (!deliveryEvents.has(event.type) || ids.delivery_id === undefined) return [];
  // The completion carries the order's total (for receipts): the customer and the restaurant only;
  // its courier hears of it as DeliveryStatusChanged (Roles: a courier sees minimum details).
  if (event.type === DeliveryCompleted.type) return [deliveryChannel(ids.delivery_id), restaurantChannel(event.tenant_id)];
  // Delivery events: the customer's channel, the restaurant (the event's tenant) and the couriers
  // concerned (a status change's courier from its version 2 on, version 1 names none; the losing
  // couriers of a version-1 CourierAssigned, version 2 names none: they get CourierLostDelivery).
  const couriers = [...(ids.courier_id == null ? [] : [ids.courier_id]), ...(ids.losing_courier_ids ?? [])];
  return [deliveryChannel(ids.delivery_id), restaurantChannel(event.tenant_id), ...couriers.map(courierChannel)];
};

/** The inbox name of the consumer that tells a version-1 status change to its delivery's courier. */
export const oldStatusChangeCouriersConsumerName = "delivery.realtime_v1_status_couriers";

/** A DeliveryStatusChanged as written before version 2: it names no courier. */
export const isOldStatusChange = (event: EventEnvelope): boolean =>
  event.type === DeliveryStatusChangedV1.type && event.schema_version === DeliveryStatusChangedV1.schemaVersion;

const oldStatusChangeOf = Schema.decodeUnknownOption(DeliveryStatusChangedV1.data);

/**
 * The courier channel of a version-1 DeliveryStatusChanged: the delivery's courier, read from the
 * delivery (the pure mapping routes it to the customer and the restaurant); none when the
 * delivery has no courier or is gone, and none for any other event.
 */
export const oldStatusChangeCourierChannels = (event: EventEnvelope): Effect.Effect<ReadonlyArray<string>, never, DispatchRepository> => {
  const data = isOldStatusChange(event) ? Option.getOrNull(oldStatusChangeOf(event.data)) : null;
  if (data === null) return Effect.succeed([]);
  return Effect.map(
    Effect.flatMap(DispatchRepository, (dispatch) => dispatch.findDelivery(data.delivery_id)),
    (delivery) => (delivery === null || delivery.courierId === null ? [] : [courierChannel(delivery.courierId)]),
  );
};
