/**
 * The order's two state machines as transition tables (docs/decisions.md, Food delivery
 * (slice 1)): the kitchen workflow and the payment. A change not in the table is refused.
 */
import { Effect } from "effect";
import { IllegalOrderTransition } from "./Errors.js";
import type { OrderStatus, PaymentState } from "./model/RestaurantOrder.js";

/** Kitchen workflow: from → allowed next states. */
export const orderTransitions: Readonly<Record<OrderStatus, ReadonlyArray<OrderStatus>>> = {
  payment_pending: ["authorized", "cancelled"],
  authorized: ["accepted", "rejected", "cancelled"],
  accepted: ["completed", "cancelled"],
  rejected: [],
  cancelled: [],
  completed: [],
};

/** Payment: from → allowed next states. */
export const paymentTransitions: Readonly<Record<PaymentState, ReadonlyArray<PaymentState>>> = {
  pending: ["authorized", "declined", "void_pending"],
  authorized: ["capture_pending", "void_pending"],
  declined: [],
  capture_pending: ["captured"],
  captured: [],
  void_pending: ["voided"],
  voided: [],
};

export const canMoveOrder = (from: OrderStatus, to: OrderStatus): boolean => orderTransitions[from].includes(to);
export const canMovePayment = (from: PaymentState, to: PaymentState): boolean => paymentTransitions[from].includes(to);

/** Succeeds when the order may move from `from` to `to`. */
export const checkOrderTransition = (from: OrderStatus, to: OrderStatus): Effect.Effect<void, IllegalOrderTransition> =>
  canMoveOrder(from, to) ? Effect.void : Effect.fail(new IllegalOrderTransition({ from, to, detail: `an order cannot move from ${from} to ${to}` }));

/** Succeeds when the payment may move from `from` to `to`. */
export const checkPaymentTransition = (from: PaymentState, to: PaymentState): Effect.Effect<void, IllegalOrderTransition> =>
  canMovePayment(from, to)
    ? Effect.void
    : Effect.fail(new IllegalOrderTransition({ from: `payment:${from}`, to: `payment:${to}`, detail: `a payment cannot move from ${from} to ${to}` }));
