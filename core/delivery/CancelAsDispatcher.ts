/**
 * POST /operator/orders/:id/cancel (spec: "Every manual reassignment, refund and state override
 * records actor and reason"; Authentication 6: support overrides require a reason and step-up).
 * Support's state override of an order the restaurant accepted but nobody can deliver (no courier
 * after the dispatch rounds, a closed kitchen): a dispatcher of the region the delivery is picked
 * up in (else 404), signed in recently (else 403 step_up_required), with a reason (1 to 500
 * characters, else 422). Only an accepted order whose delivery is pending or assigned (a meal on
 * its way is delivered: 409 order_not_cancellable). In one transaction, under the delivery's and
 * then the order's lock (a completion's lock order, so a pickup racing it wins or loses whole):
 * the delivery is cancelled with actor and reason in its status history, its live offers are
 * lost, the order is cancelled with the reason and its authorization's void is scheduled (the
 * keyed void job; tried at once after commit). An order already cancelled answers as it is.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict, ValidationFailed } from "../kernel/Errors.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { cancelWorkflow } from "./AcceptanceDeadline.js";
import { overrideTransitionId } from "./DeliveryStatus.js";
import { OrderNotCancellable } from "./Errors.js";
import { DeliveryStatusChanged } from "./Events.js";
import type { Delivery } from "./model/Delivery.js";
import { settleVoid, tryNow } from "./OrderPayments.js";
import { orderOfRegion } from "./RefundOrder.js";
import { requireStepUp } from "./StepUp.js";
import { trackingClosedJob, trackingCloseDelayMs } from "./TrackingClosed.js";

/** Cancels the order `orderId` and its delivery for `reason` as the calling dispatcher; answers the order's workflow. */
export const cancelOrderAsDispatcher = (principal: Principal, orderId: string, input: { readonly reason: string }) =>
  Effect.gen(function* () {
    const { userId, order } = yield* orderOfRegion(principal, orderId);
    yield* requireStepUp(principal, "a cancellation");
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > 500) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "a cancellation needs a reason (1 to 500 characters)" }] }));
    }
    const orders = yield* OrdersRepository;
    const dispatch = yield* DispatchRepository;
    const deliveryId = (yield* orders.findWorkflow(order.id))?.deliveryId ?? null;
    if (deliveryId === null) return yield* Effect.fail(new Conflict({ code: "order_not_cancellable", detail: "the order has no delivery" }));
    const outcome = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const delivery = yield* dispatch.findDelivery(deliveryId, { forUpdate: true });
        const workflow = yield* orders.findWorkflow(order.id, { forUpdate: true });
        if (workflow === null || delivery === null) return yield* Effect.fail(new Conflict({ code: "concurrent_update", detail: "the order changed meanwhile; retry" }));
        if (workflow.status === "cancelled") return { workflow, cancelled: false };
        if (workflow.status !== "accepted" || (delivery.status !== "pending" && delivery.status !== "assigned")) {
          return yield* Effect.fail(
            new OrderNotCancellable({
              status: workflow.status,
              deliveryStatus: delivery.status,
              detail: `An ${workflow.status} order whose delivery is ${delivery.status} cannot be cancelled by support.`,
            }),
          );
        }
        const at = yield* now;
        const next: Delivery = { ...delivery, status: "cancelled", version: delivery.version + 1, updatedAt: at };
        if (!(yield* dispatch.updateDelivery(next, delivery.version))) {
          return yield* Effect.fail(new Conflict({ code: "concurrent_update", detail: "the delivery changed meanwhile; retry" }));
        }
        yield* dispatch.loseOtherOffers(delivery.id, "", at);
        const transitionId = overrideTransitionId(yield* (yield* Ids).next);
        yield* dispatch.insertStatusChange({ deliveryId: delivery.id, transitionId, fromStatus: delivery.status, toStatus: "cancelled", version: next.version, actorId: userId, reason, at });
        yield* (yield* Outbox).append([
          yield* DeliveryStatusChanged.make({
            tenant_id: delivery.restaurantId,
            aggregate_id: delivery.id,
            aggregate_version: next.version,
            actor_id: userId,
            // The courier it concerns is told on courier:<id>, without support's reason.
            data: { delivery_id: delivery.id, courier_id: delivery.courierId, from: delivery.status, to: "cancelled", version: next.version, transition_id: transitionId },
          }),
        ]);
        // The customer's live tracking subscription is dropped shortly after, as after a completion.
        yield* trackingClosedJob.schedule({ deliveryId: delivery.id, customerId: delivery.customerId }, { runAt: new Date(at.getTime() + trackingCloseDelayMs), key: delivery.id });
        return { workflow: yield* cancelWorkflow(workflow, "cancelled", reason, userId), cancelled: true };
      }),
    );
    if (outcome.cancelled) yield* tryNow(settleVoid(order.id));
    return (yield* orders.findWorkflow(order.id)) ?? outcome.workflow;
  }).pipe(withSpan("delivery.cancelOrderAsDispatcher"));
