/**
 * The state machines of the module as transition tables (spec, States and transitions; the full
 * tables are docs/decisions.md, E-commerce). An illegal transition is a typed error; the
 * repositories apply each allowed one as a conditional update on the current status.
 */
import { Effect } from "effect";
import { OrderStatus } from "./model/Order.js";
import type { ReservationStatus } from "./model/Reservation.js";
import type { ReturnStatus } from "./model/Return.js";
import { OrderStateConflict, ReturnStateConflict } from "./Errors.js";
import type { OrderId, ReturnId } from "./model/Ids.js";

/** Order: from → the states it may move to. */
export const orderTransitions: Readonly<Record<OrderStatus, ReadonlyArray<OrderStatus>>> = {
  pending: ["confirmed", "payment_pending", "failed", "expired", "cancellation_requested"],
  payment_pending: ["confirmed", "failed", "expired", "cancellation_requested"],
  confirmed: ["cancellation_requested", "dispatched"],
  cancellation_requested: ["cancelled"],
  failed: [],
  expired: [],
  cancelled: [],
  dispatched: [],
};

/** Reservation: only a reservation still holding stock (active or committed) can be released. */
export const reservationTransitions: Readonly<Record<ReservationStatus, ReadonlyArray<ReservationStatus>>> = {
  active: ["committed", "released"],
  committed: ["consumed", "released"],
  consumed: [],
  released: [],
};

/** Return stages. */
export const returnTransitions: Readonly<Record<ReturnStatus, ReadonlyArray<ReturnStatus>>> = {
  authorized: ["received"],
  received: ["restocked", "quarantined"],
  restocked: ["refund_requested"],
  quarantined: ["refund_requested"],
  refund_requested: ["closed", "refund_failed"],
  refund_failed: ["refund_requested"],
  closed: [],
};

/** The statuses from which an order may move to `to`. */
export const orderStatusesLeadingTo = (to: OrderStatus): ReadonlyArray<OrderStatus> =>
  OrderStatus.literals.filter((from) => orderTransitions[from].includes(to));

/** Fails unless the order may move from `from` to `to`. */
export const checkOrderTransition = (orderId: OrderId, from: OrderStatus, to: OrderStatus): Effect.Effect<void, OrderStateConflict> =>
  orderTransitions[from].includes(to) ? Effect.void : Effect.fail(new OrderStateConflict({ orderId, from, to }));

/** Fails unless the return may move from `from` to `to`. */
export const checkReturnTransition = (returnId: ReturnId, from: ReturnStatus, to: ReturnStatus): Effect.Effect<void, ReturnStateConflict> =>
  returnTransitions[from].includes(to) ? Effect.void : Effect.fail(new ReturnStateConflict({ returnId, from, to }));
