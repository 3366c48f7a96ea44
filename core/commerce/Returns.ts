/**
 * Returns (spec: line-level returns; stages authorized → received → restocked | quarantined →
 * refund_requested → closed, or refund_requested → refund_failed → refund_requested when the
 * payment refuses a refund and support asks again). Creating one (POST /v1/returns) by the order's owner or support:
 * only shipped lines, each listed once, at most shipped minus already returned (also bounded by
 * the database per line), within the return window (422 otherwise); an order that is not confirmed or dispatched is 409. The order row is held while
 * the return is written, so parallel requests cannot return a line twice. Support steps need a
 * reason and are on the timeline with their actor (the reason a note guest retention clears). The refund goes through the gateway outside
 * transactions under `return:<id>/refund`; the return closes when the refund is confirmed. The
 * transaction that moves a return to refund_requested schedules the job that sends the refund if
 * it was never sent and closes the return once the payment confirms it (ReturnRefunds.ts).
 */
import { Duration, Effect } from "effect";
import { NotFound, ValidationFailed } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { StoresRepository } from "../../ports/commerce/StoresRepository.js";
import { returnView, type Return, type ReturnLine } from "./model/Return.js";
import type { Order } from "./model/Order.js";
import { maxOnHand } from "./model/StockLevel.js";
import { loadVisibleOrder, orderActorId, type OrderActor } from "./Access.js";
import { OrderNotDispatched, OrderStateConflict, ReturnNotEligible, ReturnStateConflict } from "./Errors.js";
import { reasonNote } from "./OrderNotes.js";
import { recordTimeline } from "./OrderRecords.js";
import { checkReturnTransition } from "./OrderStatus.js";
import { mulDivHalfUp } from "./Pricing.js";
import { recordRefundRefused, returnRefundCheckMs, returnRefundJob, returnRefundJobKey, sendReturnRefund } from "./ReturnRefunds.js";
import { withSpan } from "../kernel/Span.js";
import { type LocationId, type OrderId, ReturnId, StockAdjustmentId } from "./model/Ids.js";

/** How long after dispatch a line can be returned (docs/decisions.md, E-commerce). */
export const returnWindow = Duration.days(30);

export interface CreateReturnInput {
  readonly orderId: OrderId;
  readonly lines: ReadonlyArray<ReturnLine>;
  readonly reason: string;
}

export const createReturn = (actor: OrderActor, input: CreateReturnInput) =>
  Effect.gen(function* () {
    const order = yield* loadVisibleOrder(actor, input.orderId);
    const errors = [
      ...(input.reason.trim().length === 0 || input.reason.length > 1000 ? [{ path: "reason", message: "1 to 1000 characters" }] : []),
      ...(input.lines.length === 0 ? [{ path: "lines", message: "at least one line" }] : []),
      ...input.lines.flatMap((l, i) => (Number.isInteger(l.quantity) && l.quantity > 0 ? [] : [{ path: `lines/${i}/quantity`, message: "a positive integer" }])),
      // Each line once: a line listed twice would be checked against earlier returns only, then refunded and restocked twice.
      ...input.lines.flatMap((l, i) =>
        input.lines.findIndex((other) => other.orderLineId === l.orderLineId) < i ? [{ path: `lines/${i}/order_line_id`, message: "each order line at most once" }] : [],
      ),
    ];
    if (errors.length > 0) return yield* Effect.fail(new ValidationFailed({ errors }));
    // Only a wholly shipped order is captured (the payment module captures once), so only its refunds can be paid.
    if (order.status === "confirmed") return yield* Effect.fail(new OrderNotDispatched({ orderId: order.id, status: order.status }));
    if (order.status !== "dispatched") {
      return yield* Effect.fail(new OrderStateConflict({ orderId: order.id, from: order.status, to: "returned" }));
    }
    const orders = yield* OrdersRepository;
    const id = ReturnId.make(yield* (yield* Ids).next);
    const ret = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* orders.lockOrder(order.id);
        const at = yield* now;
        const lines = yield* orders.linesOf(order.id);
        const reservations = yield* (yield* InventoryRepository).reservationsOfOrder(order.id);
        const shipments = yield* orders.shipmentsOf(order.id);
        const earlier = yield* orders.returnsOf(order.id);
        let refundMinor = 0;
        for (const wanted of input.lines) {
          const line = lines.find((l) => l.id === wanted.orderLineId);
          if (line === undefined) return yield* Effect.fail(new ReturnNotEligible({ orderLineId: wanted.orderLineId }));
          const shippedFrom = shipments.filter((s) => s.status !== "pending");
          const shipped = reservations
            .filter((r) => r.variantId === line.variantId && r.status === "consumed" && shippedFrom.some((s) => s.locationId === r.locationId))
            .reduce((a, r) => a + r.quantity, 0);
          const returned = earlier.flatMap((r) => r.lines).filter((l) => l.orderLineId === line.id).reduce((a, l) => a + l.quantity, 0);
          const lastDispatch = Math.max(0, ...shippedFrom.map((s) => s.dispatchedAt?.getTime() ?? 0));
          const inWindow = lastDispatch > 0 && at.getTime() - lastDispatch <= Duration.toMillis(returnWindow);
          if (!inWindow || wanted.quantity > shipped - returned) return yield* Effect.fail(new ReturnNotEligible({ orderLineId: line.id }));
          // The database bounds what is returned of the line too (migration 7), whatever reached this point.
          if (!(yield* orders.claimReturnedQuantity(line.id, wanted.quantity))) return yield* Effect.fail(new ReturnNotEligible({ orderLineId: line.id }));
          // Cumulative: the units returned so far are worth their share of the line, rounded once, so
          // a line returned unit by unit is refunded exactly its total (never a rounding unit more).
          const worth = (units: number) => mulDivHalfUp(line.totalMinor, units, line.quantity);
          refundMinor += worth(returned + wanted.quantity) - worth(returned);
        }
        const created: Return = {
          id,
          storeId: order.storeId,
          orderId: order.id,
          status: "authorized",
          reason: input.reason,
          lines: input.lines,
          refundMinor,
          refundAttempt: 1,
          version: 1,
          createdAt: at,
          updatedAt: at,
        };
        yield* orders.insertReturn(created);
        // The reason stays on the return, where guest retention clears it (the timeline is append-only).
        yield* recordTimeline(order, "return.authorized", orderActorId(actor), { return_id: id, refund_minor: refundMinor });
        return created;
      }),
    );
    return returnView(ret, order);
  }).pipe(withSpan("commerce.createReturn"));

/** A staff member's reason: 1 to 1000 characters, as for every staff action of the module. */
const isStaffReason = (reason: string): boolean => reason.trim().length > 0 && reason.length <= 1000;
const staffReasonMessage = "1 to 1000 characters: staff actions need a reason";

/**
 * The reason of a restock's stock adjustment: its return only. The staff reason is the order's
 * (a note on its timeline, which guest retention clears); the stock ledger is append-only.
 */
const adjustmentReason = (returnId: ReturnId): string => `return ${returnId}`;

/** The next stage a staff member moves a return to, with the reason (audited on the timeline). */
export type ReturnStep = "received" | "restocked" | "quarantined";

/** Command: warehouse or support staff move a return one stage; restocking puts the units back on hand. */
export const advanceReturn = (
  actor: OrderActor & { readonly kind: "staff" },
  returnId: ReturnId,
  input: { readonly to: ReturnStep; readonly reason: string; readonly locationId?: LocationId },
) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const ret = yield* orders.findReturn(returnId);
    if (ret === null) return yield* Effect.fail(new NotFound({ resource: "return" }));
    const order = yield* loadVisibleOrder(actor, ret.orderId);
    if (!isStaffReason(input.reason)) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: staffReasonMessage }] }));
    yield* checkReturnTransition(ret.id, ret.status, input.to);
    // A location named by the caller must be one of the order's store (another store's is unknown here).
    if (input.to === "restocked" && input.locationId !== undefined) {
      if ((yield* (yield* StoresRepository).findLocation(order.storeId, input.locationId)) === null) {
        return yield* Effect.fail(new NotFound({ resource: "location" }));
      }
    }
    // Unnamed, the units go back where they shipped from: a line shipped from several locations must be told which.
    if (input.to === "restocked" && input.locationId === undefined) {
      const lines = yield* orders.linesOf(order.id);
      const consumed = (yield* (yield* InventoryRepository).reservationsOfOrder(order.id)).filter((r) => r.status === "consumed");
      const ambiguous = ret.lines.some((l) => {
        const variantId = lines.find((x) => x.id === l.orderLineId)?.variantId;
        return new Set(consumed.filter((r) => r.variantId === variantId).map((r) => r.locationId)).size > 1;
      });
      if (ambiguous) {
        return yield* Effect.fail(
          new ValidationFailed({ errors: [{ path: "location_id", message: "the line shipped from several locations: name the one its units go back to" }] }),
        );
      }
    }
    const advanced = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        const moved = yield* orders.transitionReturn(ret.id, ret.status, input.to, at);
        if (moved === null) return yield* checkReturnTransition(ret.id, "closed", input.to).pipe(Effect.as(ret));
        if (input.to === "restocked") {
          const lines = yield* orders.linesOf(order.id);
          const inventory = yield* InventoryRepository;
          const reservations = yield* inventory.reservationsOfOrder(order.id);
          for (const l of ret.lines) {
            const line = lines.find((x) => x.id === l.orderLineId);
            const from = reservations.find((r) => r.variantId === line?.variantId && r.status === "consumed");
            const locationId = input.locationId ?? from?.locationId;
            if (line === undefined || locationId === undefined) continue;
            if ((yield* inventory.adjust({ storeId: order.storeId, variantId: line.variantId, locationId, delta: l.quantity, now: at })) === null) {
              return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "location_id", message: `on hand there would exceed ${maxOnHand} units` }] }));
            }
            yield* inventory.insertAdjustment({
              id: StockAdjustmentId.make(yield* (yield* Ids).next),
              storeId: order.storeId,
              variantId: line.variantId,
              locationId,
              delta: l.quantity,
              reason: adjustmentReason(ret.id),
              actorId: orderActorId(actor),
              createdAt: at,
            });
          }
        }
        yield* recordTimeline(order, `return.${input.to}`, orderActorId(actor), { return_id: ret.id, ...(yield* reasonNote(order, input.reason)) });
        return moved;
      }),
    );
    return returnView(advanced, order);
  }).pipe(withSpan("commerce.advanceReturn"));

/**
 * Command: support requests the return's refund (audited with a reason). The return moves to
 * refund_requested (from restocked or quarantined, or from refund_failed: the refund's next
 * attempt, of which requests made at once move exactly one), then the gateway refunds under the
 * attempt's key; a refund the gateway answers as succeeded closes the return, a refused one moves
 * it to refund_failed, a pending one waits for the payment's confirmation.
 */
export const requestReturnRefund = (actor: OrderActor & { readonly kind: "staff" }, returnId: ReturnId, input: { readonly reason: string }) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const found = yield* orders.findReturn(returnId);
    if (found === null) return yield* Effect.fail(new NotFound({ resource: "return" }));
    const order = yield* loadVisibleOrder({ ...actor, role: "support" }, found.orderId);
    if (!isStaffReason(input.reason)) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: staffReasonMessage }] }));
    return returnView(yield* refundRequested(actor, order, found, input.reason), order);
  }).pipe(withSpan("commerce.requestReturnRefund"));

/** The refund request of a visible return, with a valid reason: what the return is after it. */
const refundRequested = (actor: OrderActor & { readonly kind: "staff" }, order: Order, found: Return, reason: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    let ret: Return = found;
    if (ret.status !== "refund_requested") {
      yield* checkReturnTransition(ret.id, ret.status, "refund_requested");
      const at = yield* now;
      const from = ret;
      ret = yield* (yield* Transactions).run(
        Effect.gen(function* () {
          const moved =
            from.status === "refund_failed"
              ? yield* orders.requestReturnRefundAgain(from.id, from.refundAttempt, at)
              : yield* orders.transitionReturn(from.id, from.status, "refund_requested", at);
          // Another request moved it first (of requests at once, one sends the refund).
          if (moved === null) {
            const current = (yield* orders.findReturn(from.id))?.status ?? from.status;
            return yield* Effect.fail(new ReturnStateConflict({ returnId: from.id, from: current, to: "refund_requested" }));
          }
          yield* recordTimeline(order, "return.refund_requested", orderActorId(actor), {
            return_id: from.id,
            ...(yield* reasonNote(order, reason)),
            amount_minor: from.refundMinor,
            attempt: moved.refundAttempt,
          });
          // Durable with the request: if the refund below is never sent or never answered, the job sends it and closes the return.
          yield* returnRefundJob.schedule(
            { orderId: order.id },
            { runAt: new Date(at.getTime() + returnRefundCheckMs), key: returnRefundJobKey(from.id, moved.refundAttempt) },
          );
          return moved;
        }),
      );
    }
    const payment = yield* orders.findPayment(order.id);
    if (ret.refundMinor === 0) {
      // Nothing to refund (a free order's return): the gateway is not asked, the return closes.
      const waiting = ret;
      return yield* (yield* Transactions).run(
        Effect.gen(function* () {
          const closed = yield* orders.transitionReturn(waiting.id, "refund_requested", "closed", yield* now);
          if (closed === null) return (yield* orders.findReturn(waiting.id)) ?? waiting;
          yield* recordTimeline(order, "return.closed", orderActorId(actor), { return_id: waiting.id, refund_id: null });
          return closed;
        }),
      );
    }
    if (payment === null || payment.paymentId === null) return yield* Effect.fail(new OrderStateConflict({ orderId: order.id, from: order.status, to: "refunded" }));
    // The order's capture is not recorded yet (its job retries it): the refund waits, and the job
    // scheduled with the request sends it once the capture is recorded.
    if (payment.status !== "captured") return (yield* orders.findReturn(ret.id)) ?? ret;
    const refund = yield* sendReturnRefund(payment.merchantId, payment.paymentId, order.currency, ret).pipe(
      // The same attempt is being sent by another request right now (its key is still running):
      // that one, or the job scheduled with the request, records the answer.
      Effect.catchTag("PaymentStateConflict", (e) => (e.reason === "idempotency_request_in_progress" ? Effect.succeed(null) : Effect.fail(e))),
    );
    if (refund === null) return (yield* orders.findReturn(ret.id)) ?? ret;
    if (refund.status === "failed") {
      // Refused: the return gets its own stage (once, whoever records it first), for support to request again.
      return (yield* recordRefundRefused(order, ret, orderActorId(actor))) ?? (yield* orders.findReturn(ret.id)) ?? ret;
    }
    if (refund.status !== "succeeded") {
      // Pending at the provider: the confirmation job closes the return once the payment confirms it.
      const at = yield* now;
      yield* returnRefundJob.schedule(
        { orderId: order.id },
        { runAt: new Date(at.getTime() + returnRefundCheckMs), key: returnRefundJobKey(ret.id, ret.refundAttempt) },
      );
      return (yield* orders.findReturn(ret.id)) ?? ret;
    }
    const waiting = ret;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const closed = yield* orders.transitionReturn(waiting.id, "refund_requested", "closed", yield* now);
        if (closed === null) return (yield* orders.findReturn(waiting.id)) ?? waiting;
        yield* orders.addRefundedMinor(order.id, waiting.refundMinor, yield* now);
        yield* recordTimeline(order, "return.closed", orderActorId(actor), { return_id: waiting.id, refund_id: refund.refundId });
        return closed;
      }),
    );
  });
