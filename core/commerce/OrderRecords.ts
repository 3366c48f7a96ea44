/**
 * Small steps every order command shares: record a timeline entry, move the order (a
 * conditional status update checked against the transition table), save the payment record
 * (with its timeline entry, in one transaction) and release an order's reservations — each
 * reservation once, by a conditional status change, with its stock.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository, type OrderChange } from "../../ports/commerce/OrdersRepository.js";
import type { Order, OrderStatus } from "./model/Order.js";
import type { OrderPayment } from "./model/OrderPayment.js";
import type { Reservation, ReservationStatus } from "./model/Reservation.js";
import { orderStatusesLeadingTo } from "./OrderStatus.js";
import { type OrderId, TimelineEntryId } from "./model/Ids.js";

/** Appends one timeline entry of the order. */
export const recordTimeline = (order: Pick<Order, "id" | "storeId">, kind: string, actorId: string, detail: unknown = {}) =>
  Effect.gen(function* () {
    const id = TimelineEntryId.make(yield* (yield* Ids).next);
    yield* (yield* OrdersRepository).appendTimeline({ id, storeId: order.storeId, orderId: order.id, kind, actorId, detail, createdAt: yield* now });
  });

/**
 * Saves the order's payment record with `change` applied (and a fresh `updatedAt`), only if its
 * status is still the one `payment` was read in; the record saved, or null when another writer
 * moved it first (its answer stands: an old copy never writes over a capture or a refund).
 */
export const savePayment = (payment: OrderPayment, change: Partial<Pick<OrderPayment, "status" | "paymentId" | "capturedMinor" | "refundedMinor">>) =>
  Effect.gen(function* () {
    const next: OrderPayment = { ...payment, ...change, updatedAt: yield* now };
    return (yield* (yield* OrdersRepository).updatePayment(next, payment.status)) ? next : null;
  });

/**
 * Saves the payment record after a provider call (capture, void, refund) together with its
 * timeline entry, in one transaction: a retry skips a payment already in the new state, so an
 * entry written apart from it could be lost for good. Nothing is written when another writer
 * moved the record first (null then).
 */
export const savePaymentWithTimeline = (
  payment: OrderPayment,
  change: Parameters<typeof savePayment>[1],
  order: Pick<Order, "id" | "storeId">,
  kind: string,
  actorId: string,
  detail: unknown,
) =>
  Effect.flatMap(Transactions, (transactions) =>
    transactions.run(
      Effect.flatMap(savePayment(payment, change), (saved) => (saved === null ? Effect.succeed(null) : Effect.as(recordTimeline(order, kind, actorId, detail), saved))),
    ),
  );

/**
 * Moves the order to `to` from whichever allowed state it is in now (the table's sources, or
 * the narrower `from`); null when it is in none of them (someone else moved it first). The
 * move is recorded on the timeline.
 */
export const moveOrder = (
  orderId: OrderId,
  to: OrderStatus,
  actorId: string,
  options: { readonly from?: ReadonlyArray<OrderStatus>; readonly change?: OrderChange; readonly detail?: unknown } = {},
) =>
  Effect.gen(function* () {
    const from = options.from ?? orderStatusesLeadingTo(to);
    const moved = yield* (yield* OrdersRepository).transitionOrder(orderId, from, to, yield* now, options.change);
    if (moved !== null) yield* recordTimeline(moved, `order.${to}`, actorId, options.detail ?? {});
    return moved;
  });

/**
 * Releases the order's reservations that are still in one of `from`, returning those this call
 * released: each is a conditional status change, so a reservation is released (and its stock
 * given back) exactly once however many callers race.
 */
export const releaseReservations = (orderId: OrderId, from: ReadonlyArray<ReservationStatus>, options: { readonly dueBy?: Date } = {}) =>
  Effect.gen(function* () {
    const inventory = yield* InventoryRepository;
    const at = yield* now;
    const released: Reservation[] = [];
    for (const r of yield* inventory.reservationsOfOrder(orderId)) {
      if (!from.includes(r.status)) continue;
      if (options.dueBy !== undefined && r.expiresAt.getTime() > options.dueBy.getTime()) continue;
      if (yield* inventory.transitionReservation(r.id, from, "released", at)) {
        yield* inventory.unreserve(r.variantId, r.locationId, r.quantity, at);
        released.push(r);
      }
    }
    return released;
  });
