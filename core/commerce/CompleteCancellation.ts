/**
 * Completing a requested cancellation (spec: order not yet dispatched -> cancellation requested ->
 * cancelled): once the payment's outcome is known its authorization is voided (or a capture
 * refunded), then in one transaction the reservations are released and the order becomes
 * `cancelled` with OrderCancelled. Whoever comes first finishes it: the cancel request itself,
 * its completion job, or the path that records the authorization's outcome (OrderPayments.ts).
 */
import { Effect, Schema } from "effect";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { withSpan } from "../kernel/Span.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { OrderCancelled } from "./Events.js";
import { OrderId } from "./model/Ids.js";
import { moveOrder, releaseReservations } from "./OrderRecords.js";
import { givePromotionUsesBack } from "./Promotions.js";
import { PaymentStillProcessing, releasePayment } from "./PaymentRelease.js";
import type { CommerceServices } from "./Services.js";

/** Finishes a requested cancellation: payment released, stock released, order cancelled. */
export const completeCancellation = (orderId: OrderId, actorId: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const order = yield* orders.findOrder(orderId);
    const payment = yield* orders.findPayment(orderId);
    if (order === null || payment === null || order.status !== "cancellation_requested") return order;
    if (payment.status === "unknown" || payment.status === "authorizing") {
      // Nothing is guessed: the payment's outcome must be known before it can be released.
      return yield* Effect.fail(new PaymentStillProcessing({ orderId }));
    }
    yield* releasePayment(order, payment, actorId);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const moved = yield* moveOrder(orderId, "cancelled", actorId, { from: ["cancellation_requested"] });
        if (moved === null) return order;
        yield* releaseReservations(orderId, ["active", "committed"]);
        yield* givePromotionUsesBack(orderId);
        const event = yield* OrderCancelled.make({
          tenant_id: moved.storeId,
          aggregate_id: moved.id,
          aggregate_version: moved.version,
          actor_id: actorId,
          data: { order_id: moved.id, reason: "cancelled" },
        });
        yield* (yield* Outbox).append([event]);
        return moved;
      }),
    );
  }).pipe(withSpan("commerce.completeCancellation"));

/** The durable job that completes a cancellation whose payment step could not finish at once. */
export const cancellationJob: JobDefinition<{ readonly orderId: OrderId }, CommerceServices> = defineJob({
  kind: "commerce.complete-cancellation",
  payload: Schema.Struct({ orderId: OrderId }),
  handle: ({ orderId }) => Effect.asVoid(completeCancellation(orderId, "system:commerce-cancellation")),
});

