/**
 * Command: state-aware cancellation (POST /v1/orders/:id/cancel), by the order's owner or
 * support. An order not yet dispatched (confirmed, or still in checkout: pending or
 * payment_pending) moves to `cancellation_requested` (202) by a conditional update; then, outside
 * the transaction, the authorization is voided (or a capture refunded) under keys derived from
 * the order, and in a second transaction its reservations are released (each once) and the order
 * becomes `cancelled` with OrderCancelled. If the payment's outcome is not known yet, whichever
 * comes first finishes it: the completion job, or the path that records the outcome
 * (core/commerce/OrderPayments.ts), which never confirms such an order. A dispatched order,
 * or one with any shipment dispatched (split fulfilment), is 409 order_dispatched; cancelling again answers the order as it is.
 */
import { Effect } from "effect";
import { ValidationFailed } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { Transactions } from "../../ports/Transactions.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { Order } from "./model/Order.js";
import { loadVisibleOrder, orderActorId, type OrderActor } from "./Access.js";
import { OrderDispatched, OrderStateConflict } from "./Errors.js";
import { moveOrder, recordTimeline } from "./OrderRecords.js";
import { closeFulfillmentTask } from "./FulfillmentTaskStatus.js";
import { keepNote, newNoteId } from "./OrderNotes.js";
import { cancellationJob, completeCancellation } from "./CompleteCancellation.js";
import type { CommerceServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";
import { OrderId } from "./model/Ids.js";

/** Requests the cancellation and tries to complete it at once; answers the order as it then is. */
export const cancelOrder = (actor: OrderActor, orderId: OrderId, input: { readonly reason: string }) =>
  Effect.gen(function* () {
    if (actor.kind === "staff" && input.reason.trim().length === 0) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "support actions need a reason" }] }));
    }
    if (input.reason.length > 1000) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "at most 1000 characters" }] }));
    const order = yield* loadVisibleOrder(actor, orderId);
    const actorId = orderActorId(actor);
    // The reason (a shopper's or support's) is kept as a note the timeline refers to, which guest retention clears.
    const noteId = input.reason.trim().length > 0 ? yield* newNoteId : null;
    if (order.status === "dispatched") return yield* Effect.fail(new OrderDispatched({ orderId }));
    if (order.status === "cancelled") return order;
    if (order.status !== "cancellation_requested") {
      const at = yield* now;
      const requested = yield* (yield* Transactions).run(
        Effect.gen(function* () {
          // Under the order's lock (a dispatch takes it too): a shipment that has left any location
          // is a dispatch, even while the order still waits for its other locations.
          yield* (yield* OrdersRepository).lockOrder(orderId);
          const reservations = yield* (yield* InventoryRepository).reservationsOfOrder(orderId);
          if (reservations.some((r) => r.status === "consumed")) return yield* Effect.fail(new OrderDispatched({ orderId }));
          const moved = yield* moveOrder(orderId, "cancellation_requested", actorId, {
            from: ["pending", "payment_pending", "confirmed"],
            detail: noteId === null ? { reason: input.reason } : { note_id: noteId },
          });
          if (moved !== null) {
            if (noteId !== null) yield* keepNote(moved, noteId, input.reason);
            // Nothing of it may ship any more: its fulfillment task leaves the warehouse's open list.
            yield* closeFulfillmentTask(orderId);
            yield* cancellationJob.schedule({ orderId }, { runAt: new Date(at.getTime() + 30_000), key: `order:${orderId}` });
          }
          return moved;
        }),
      );
      if (requested === null) {
        const current = yield* (yield* OrdersRepository).findOrder(orderId);
        if (current?.status === "dispatched") return yield* Effect.fail(new OrderDispatched({ orderId }));
        if (current?.status !== "cancellation_requested" && current?.status !== "cancelled") {
          return yield* Effect.fail(new OrderStateConflict({ orderId, from: current?.status ?? order.status, to: "cancellation_requested" }));
        }
      }
    }
    const completed = yield* completeCancellation(orderId, actorId).pipe(
      Effect.catchAll((error) =>
        Effect.gen(function* () {
          // The job finishes it; the caller gets 202 with the order as it stands.
          yield* recordTimeline(order, "cancellation.deferred", actorId, { reason: error._tag });
          return yield* (yield* OrdersRepository).findOrder(orderId);
        }),
      ),
    );
    const result: Order = completed ?? order;
    return result;
  }).pipe(withSpan("commerce.cancelOrder"));
