/**
 * The restaurant acceptance deadline (spec: States, "acceptance deadline passes"): a durable
 * timer per order. When it fires and the restaurant has not accepted, the order is cancelled
 * and its authorization voided; while the provider is down the order shows `void_pending` and
 * the void job retries. It races restaurant acceptance on the same locked workflow row, so
 * exactly one of the two outcomes happens.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrderCancelled, RestaurantRejectedOrder } from "./Events.js";
import { paymentFallbackAt, paymentVoidJob, settleVoid, tryNow } from "./OrderPayments.js";
import { checkOrderTransition } from "./OrderStatus.js";
import type { RestaurantOrder } from "./model/RestaurantOrder.js";
import { withSpan } from "../kernel/Span.js";

/** The deadline fired before it was due (a clock skew); the job retries. */
export class DeadlineNotDue extends Error {
  override readonly name = "DeadlineNotDue";
}

/** Cancels `workflow` (locked by the caller's transaction) and schedules the void of its authorization. */
export const cancelWorkflow = (workflow: RestaurantOrder, to: "cancelled" | "rejected", reason: string, actorId: string | null) =>
  Effect.gen(function* () {
    yield* checkOrderTransition(workflow.status, to);
    const at = yield* now;
    const voidable = workflow.paymentState === "authorized" || workflow.paymentState === "pending";
    const next: RestaurantOrder = {
      ...workflow,
      status: to,
      paymentState: voidable ? "void_pending" : workflow.paymentState,
      reason,
      version: workflow.version + 1,
      updatedAt: at,
    };
    yield* (yield* OrdersRepository).updateWorkflow(next, workflow.version);
    const input = {
      tenant_id: workflow.restaurantId,
      aggregate_id: workflow.orderId,
      aggregate_version: next.version,
      actor_id: actorId,
      data: { order_id: workflow.orderId, restaurant_id: workflow.restaurantId, reason },
    };
    const event = yield* (to === "rejected" ? RestaurantRejectedOrder.make(input) : OrderCancelled.make(input));
    yield* (yield* Outbox).append([event]);
    if (voidable) yield* paymentVoidJob.schedule({ orderId: workflow.orderId }, { runAt: paymentFallbackAt(at), key: workflow.orderId });
    return next;
  });

/** The deadline's work: "cancelled" when it cancelled the order, "settled" when the restaurant answered first. */
export const expireAcceptance = (orderId: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const outcome = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const workflow = yield* orders.findWorkflow(orderId, { forUpdate: true });
        if (workflow === null || (workflow.status !== "authorized" && workflow.status !== "payment_pending")) return "settled" as const;
        const at = yield* now;
        if (at.getTime() < workflow.acceptDeadline.getTime()) return yield* Effect.fail(new DeadlineNotDue(`order ${orderId}: deadline not due`));
        yield* cancelWorkflow(workflow, "cancelled", "acceptance_deadline", null);
        return "cancelled" as const;
      }),
    );
    if (outcome === "cancelled") yield* tryNow(settleVoid(orderId));
    return outcome;
  }).pipe(withSpan("delivery.expireAcceptance"));

export const acceptanceDeadlineJob = defineJob({
  kind: "delivery.acceptance_deadline",
  payload: Schema.Struct({ orderId: Schema.String }),
  handle: (p) => Effect.asVoid(expireAcceptance(p.orderId)),
});
