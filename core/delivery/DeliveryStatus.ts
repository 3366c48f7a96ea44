/**
 * The delivery state machine as a transition table: only forward, pickup only after
 * assignment. The courier drives assigned → picked_up → delivered; assignment happens through
 * the winner election (AcceptOffer), cancellation through the order.
 */
import { Effect, Schema } from "effect";
import { IllegalDeliveryTransition, UnknownDeliveryStatus } from "./Errors.js";
import { DeliveryStatus } from "./model/Delivery.js";

/** from → allowed next states (every one later in `deliveryStatusRank`). */
export const deliveryTransitions: Readonly<Record<DeliveryStatus, ReadonlyArray<DeliveryStatus>>> = {
  pending: ["assigned", "cancelled"],
  assigned: ["picked_up", "cancelled"],
  picked_up: ["delivered"],
  delivered: [],
  cancelled: [],
};

/** The transitions the assigned courier may request. */
export const courierTransitions: Readonly<Record<DeliveryStatus, ReadonlyArray<DeliveryStatus>>> = {
  pending: [],
  assigned: ["picked_up"],
  picked_up: ["delivered"],
  delivered: [],
  cancelled: [],
};

/** The order of statuses; the database refuses any update that lowers it (migration 0001). */
export const deliveryStatusRank: Readonly<Record<DeliveryStatus, number>> = {
  pending: 0,
  assigned: 1,
  picked_up: 2,
  delivered: 3,
  cancelled: 4,
};

const isDeliveryStatus = Schema.is(DeliveryStatus);

/** Reads a requested target status; anything else is 422. */
export const parseDeliveryStatus = (status: string): Effect.Effect<DeliveryStatus, UnknownDeliveryStatus> =>
  isDeliveryStatus(status) ? Effect.succeed(status) : Effect.fail(new UnknownDeliveryStatus({ status, detail: `unknown delivery status ${JSON.stringify(status)}` }));

/** Succeeds when `table` permits `from` → `to`. */
export const checkDeliveryTransition = (
  from: DeliveryStatus,
  to: DeliveryStatus,
  table: Readonly<Record<DeliveryStatus, ReadonlyArray<DeliveryStatus>>> = deliveryTransitions,
): Effect.Effect<void, IllegalDeliveryTransition> =>
  table[from].includes(to)
    ? Effect.void
    : Effect.fail(new IllegalDeliveryTransition({ from, to, detail: `a delivery cannot move from ${from} to ${to}` }));

/**
 * The transition ids the system writes into a delivery's status history: its creation, an
 * offer won, a dispatcher's reassignment. They share the history's key (delivery, transition id)
 * with the courier's own ids, so a courier may not send one (UpdateDeliveryStatus: 422).
 */
export const createdTransitionId = "created";
export const offerTransitionId = (offerId: string): string => `offer:${offerId}`;
export const reassignTransitionId = (id: string): string => `reassign:${id}`;
/** A dispatcher's cancellation of the delivery (CancelAsDispatcher.ts). */
export const overrideTransitionId = (id: string): string => `override:${id}`;

/** True for an id of the system's form (`created`, `offer:…`, `reassign:…`, `override:…`). */
export const isSystemTransitionId = (transitionId: string): boolean =>
  transitionId === createdTransitionId || transitionId.startsWith("offer:") || transitionId.startsWith("reassign:") || transitionId.startsWith("override:");
