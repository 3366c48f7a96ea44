/**
 * Push notifications (spec: background work): the push consumer turns delivery events into one
 * durable push job per recipient — the restaurant's staff hear of a new order, a courier of an
 * offer, the customer of the acceptance (with the promised preparation time), a rejection or
 * cancellation, an assigned courier and the completion; a courier of the cancellation of their
 * delivery by support, and a customer of a refund.
 * The job calls the PushNotifier outside any transaction and is retried with backoff (and
 * dead-lettered) while the provider fails; its key is the event and recipient, so a redelivered
 * event schedules nothing new.
 */
import { Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { defineJob } from "../kernel/JobDefinition.js";
import type { Jobs } from "../../ports/Jobs.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { PushNotifier, type Push } from "../../ports/delivery/PushNotifier.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import {
  CourierAssigned,
  CourierOffered,
  DeliveryCompleted,
  DeliveryEvent,
  DeliveryStatusChanged,
  OrderCancelled,
  OrderPlaced,
  OrderRefunded,
  RestaurantAcceptedOrder,
  RestaurantRejectedOrder,
  SubstitutionProposed,
} from "./Events.js";
import { withSpan } from "../kernel/Span.js";

/** At most this many staff members of one restaurant are told of a new order. */
export const maxStaffPushes = 20;

const PushPayload = Schema.Struct({
  id: Schema.String,
  recipientUserId: Schema.String,
  kind: Schema.Literal("order_placed", "order_accepted", "order_cancelled", "order_rejected", "courier_offered", "courier_assigned", "delivery_completed", "substitution_proposed", "delivery_cancelled", "order_refunded"),
  title: Schema.String,
  body: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.String }),
});

/**
 * True when a staff push still has its recipient on the order's restaurant staff: a member
 * removed between the event and the send hears nothing more of the restaurant.
 */
const stillStaff = (push: Push): Effect.Effect<boolean, never, OrdersRepository | RestaurantsRepository> =>
  Effect.gen(function* () {
    // The restaurant the push names; a push scheduled before it named one finds it through its order.
    let restaurantId = push.data["restaurant_id"];
    if (restaurantId === undefined) {
      const orderId = push.data["order_id"];
      const order = orderId === undefined ? null : yield* (yield* OrdersRepository).findOrder(orderId);
      if (order === null) return false;
      restaurantId = order.restaurantId;
    }
    return yield* (yield* RestaurantsRepository).isStaff(restaurantId, push.recipientUserId);
  });

/** The pushes addressed to a restaurant's staff (re-checked when sent). */
const staffKinds = new Set<Push["kind"]>(["order_placed"]);

/** Sends one push; a failure fails the job, which the runner retries with backoff. */
export const pushJob = defineJob({
  kind: "delivery.push",
  payload: PushPayload,
  handle: (push) =>
    Effect.gen(function* () {
      if (staffKinds.has(push.kind) && !(yield* stillStaff(push))) return;
      yield* (yield* PushNotifier).send(push);
    }).pipe(withSpan("delivery.push")),
});

const pushTypes = new Set<string>(
  [OrderPlaced, RestaurantAcceptedOrder, OrderCancelled, RestaurantRejectedOrder, CourierOffered, CourierAssigned, DeliveryCompleted, SubstitutionProposed, DeliveryStatusChanged, OrderRefunded].map((d) => d.type),
);
const decodeEvent = Schema.decodeUnknownOption(DeliveryEvent);

/** The pushes one event asks for (reads who the recipients are). */
const pushesOf = (event: EventEnvelope) =>
  Effect.gen(function* () {
    const decoded = Option.getOrNull(decodeEvent(event));
    if (decoded === null) return [];
    const push = (recipientUserId: string, kind: Push["kind"], title: string, body: string, data: Record<string, string>): Push => ({
      id: `${event.id}:${recipientUserId}`,
      recipientUserId,
      kind,
      title,
      body,
      data,
    });
    const customerOf = (orderId: string) => Effect.map(Effect.flatMap(OrdersRepository, (o) => o.findOrder(orderId)), (order) => order?.customerId ?? null);
    switch (decoded.type) {
      case "OrderPlaced": {
        const staff = yield* Effect.flatMap(RestaurantsRepository, (r) => r.staffOf(decoded.data.restaurant_id, maxStaffPushes));
        return staff.map((userId) => push(userId, "order_placed", "New order", "A new order is waiting for you.", { order_id: decoded.data.order_id, restaurant_id: decoded.data.restaurant_id }));
      }
      case "RestaurantAcceptedOrder": {
        // Spec, Events: RestaurantAcceptedOrder goes to dispatch and notifications.
        const customer = yield* customerOf(decoded.data.order_id);
        if (customer === null) return [];
        return [
          push(customer, "order_accepted", "Order accepted", "The restaurant is preparing your order.", {
            order_id: decoded.data.order_id,
            prep_time_minutes: String(decoded.data.prep_time_minutes),
          }),
        ];
      }
      case "OrderCancelled":
      case "RestaurantRejectedOrder": {
        const customer = yield* customerOf(decoded.data.order_id);
        if (customer === null) return [];
        const rejected = decoded.type === "RestaurantRejectedOrder";
        return [
          push(customer, rejected ? "order_rejected" : "order_cancelled", rejected ? "Order declined" : "Order cancelled", "Your order will not be delivered; the payment is released.", {
            order_id: decoded.data.order_id,
          }),
        ];
      }
      case "CourierOffered": {
        const courier = yield* Effect.flatMap(DispatchRepository, (d) => d.findCourier(decoded.data.courier_id));
        if (courier === null) return [];
        return [push(courier.userId, "courier_offered", "New delivery offer", "Accept it before it expires.", { offer_id: decoded.data.offer_id, delivery_id: decoded.data.delivery_id, expires_at: decoded.data.expires_at })];
      }
      case "CourierAssigned": {
        const customer = yield* customerOf(decoded.data.order_id);
        if (customer === null) return [];
        return [push(customer, "courier_assigned", "Courier on the way", "A courier is assigned to your order.", { order_id: decoded.data.order_id, delivery_id: decoded.data.delivery_id })];
      }
      case "DeliveryCompleted": {
        const customer = yield* customerOf(decoded.data.order_id);
        if (customer === null) return [];
        return [push(customer, "delivery_completed", "Delivered", "Enjoy your meal.", { order_id: decoded.data.order_id, delivery_id: decoded.data.delivery_id })];
      }
      case "SubstitutionProposed": {
        const customer = yield* customerOf(decoded.data.order_id);
        if (customer === null) return [];
        return [
          push(customer, "substitution_proposed", "Substitution proposed", "The restaurant suggests a replacement for an item; accept or refuse it in your order.", {
            order_id: decoded.data.order_id,
            substitution_id: decoded.data.substitution_id,
          }),
        ];
      }
      case "DeliveryStatusChanged": {
        // Support cancelled the delivery: its courier must not pick it up (told on courier:<id> too, if the app is open).
        if (decoded.data.to !== "cancelled") return [];
        const delivery = yield* Effect.flatMap(DispatchRepository, (d) => d.findDelivery(decoded.data.delivery_id));
        const courier = delivery?.courierId == null ? null : yield* Effect.flatMap(DispatchRepository, (d) => d.findCourier(delivery.courierId!));
        if (courier === null) return [];
        return [push(courier.userId, "delivery_cancelled", "Delivery cancelled", "Support cancelled this delivery; do not pick it up.", { delivery_id: decoded.data.delivery_id })];
      }
      case "OrderRefunded": {
        const customer = yield* customerOf(decoded.data.order_id);
        if (customer === null) return [];
        return [
          push(customer, "order_refunded", "Refund on its way", "Part or all of your payment is being returned.", {
            order_id: decoded.data.order_id,
            amount_minor: String(decoded.data.amount_minor),
            currency: decoded.data.currency,
          }),
        ];
      }
      default:
        return [];
    }
  });

/** Schedules the pushes of one event (each job keyed by event and recipient). */
export const schedulePushes = (event: EventEnvelope): Effect.Effect<number, never, OrdersRepository | RestaurantsRepository | DispatchRepository | Jobs> =>
  Effect.gen(function* () {
    const pushes = yield* pushesOf(event);
    for (const push of pushes) yield* pushJob.schedule(push, { runAt: new Date(event.occurred_at), key: push.id });
    return pushes.length;
  });

/** The push consumer (shaped as adapters/worker's Consumer; the module lists it). */
export const deliveryPushConsumer = {
  name: "delivery.push",
  handles: (event: EventEnvelope): boolean => pushTypes.has(event.type),
  handle: (event: EventEnvelope) => Effect.asVoid(schedulePushes(event)),
};
