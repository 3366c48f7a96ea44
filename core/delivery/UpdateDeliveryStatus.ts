/**
 * PATCH /deliveries/:id/status (the assigned courier): a permitted forward transition
 * (assigned → picked_up → delivered), named by a transition id and optionally checked against
 * the expected version. The same transition id answers the same result and changes nothing.
 * Completion (`delivered`) commits the balanced settlement entries with it, marks the order
 * completed with its capture pending, writes DeliveryCompleted, and then — outside the
 * transaction — captures the payment (retried by its job while the provider is down).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict, ValidationFailed } from "../kernel/Errors.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { SettlementLedger } from "../../ports/delivery/SettlementLedger.js";
import { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { callerCourier, notFound, requireUser } from "./Access.js";
import { courierTransitions, checkDeliveryTransition, isSystemTransitionId, parseDeliveryStatus } from "./DeliveryStatus.js";
import { DeliveryVersionConflict, TransitionIdReused } from "./Errors.js";
import { DeliveryCompleted, DeliveryStatusChanged } from "./Events.js";
import type { Delivery } from "./model/Delivery.js";
import type { DeliveryStatusChange } from "./model/DeliveryStatusChange.js";
import { paymentCaptureJob, paymentFallbackAt, settleCapture, tryNow } from "./OrderPayments.js";
import { trackingClosedJob, trackingCloseDelayMs } from "./TrackingClosed.js";
import { checkOrderTransition, checkPaymentTransition } from "./OrderStatus.js";
import { settlementEntries } from "./Settlement.js";
import { withSpan } from "../kernel/Span.js";

export interface StatusRequest {
  readonly transitionId: string;
  readonly status: string;
  /** The version the courier last saw; required (spec: "transition id supplied; version check"). */
  readonly expectedVersion: number;
}

/** The answer of a transition: the change it made (the same on every repeat). */
export type StatusResult = DeliveryStatusChange;

/** Settles a delivered order inside the completion's transaction. */
const completeOrder = (delivery: Delivery, courierId: string, actorId: string, at: Date) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const order = yield* orders.findOrder(delivery.orderId);
    const workflow = yield* orders.findWorkflow(delivery.orderId, { forUpdate: true });
    if (order === null || workflow === null) return yield* Effect.fail(notFound("order"));
    const ids = yield* Ids;
    const entries = yield* settlementEntries({ order, deliveryId: delivery.id, courierId, actorId, at, newId: ids.next });
    yield* (yield* SettlementLedger).post(entries);
    yield* checkOrderTransition(workflow.status, "completed");
    yield* checkPaymentTransition(workflow.paymentState, "capture_pending");
    const next = { ...workflow, status: "completed" as const, paymentState: "capture_pending" as const, version: workflow.version + 1, updatedAt: at };
    if (!(yield* orders.updateWorkflow(next, workflow.version))) {
      return yield* Effect.fail(new Conflict({ code: "concurrent_update", detail: "the order changed meanwhile; retry" }));
    }
    yield* paymentCaptureJob.schedule({ orderId: order.id }, { runAt: paymentFallbackAt(at), key: order.id });
    return order;
  });

/** Applies the caller's (the assigned courier's) transition to the delivery. */
export const updateDeliveryStatus = (principal: Principal, deliveryId: string, request: StatusRequest) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const transitionId = request.transitionId.trim();
    if (transitionId.length < 1 || transitionId.length > 200) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "transition_id", message: "must be 1 to 200 characters" }] }));
    }
    // The history also holds the system's ids (creation, offer won, reassignment): never the courier's.
    if (isSystemTransitionId(transitionId)) {
      return yield* Effect.fail(
        new ValidationFailed({ errors: [{ path: "transition_id", message: "\"created\" and ids starting with \"offer:\" or \"reassign:\" are reserved" }] }),
      );
    }
    const target = yield* parseDeliveryStatus(request.status);
    const courier = yield* callerCourier(userId, "delivery");
    const dispatch = yield* DispatchRepository;
    const result = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const delivery = yield* dispatch.findDelivery(deliveryId, { forUpdate: true });
        if (delivery === null || delivery.courierId !== courier.id) return yield* Effect.fail(notFound("delivery"));
        const prior = yield* dispatch.findStatusChange(delivery.id, transitionId);
        if (prior !== null) {
          if (prior.toStatus !== target) {
            return yield* Effect.fail(new TransitionIdReused({ transitionId, detail: "this transition id was used for another status" }));
          }
          return { change: prior, completed: false };
        }
        if (request.expectedVersion !== delivery.version) {
          return yield* Effect.fail(
            new DeliveryVersionConflict({ currentVersion: delivery.version, detail: `expected version ${request.expectedVersion}, the delivery is at ${delivery.version}` }),
          );
        }
        yield* checkDeliveryTransition(delivery.status, target, courierTransitions);
        const at = yield* now;
        const next: Delivery = { ...delivery, status: target, version: delivery.version + 1, updatedAt: at };
        if (!(yield* dispatch.updateDelivery(next, delivery.version))) {
          return yield* Effect.fail(new DeliveryVersionConflict({ currentVersion: delivery.version, detail: "the delivery changed meanwhile" }));
        }
        const change: DeliveryStatusChange = {
          deliveryId: delivery.id,
          transitionId,
          fromStatus: delivery.status,
          toStatus: target,
          version: next.version,
          actorId: userId,
          reason: null,
          at,
        };
        yield* dispatch.insertStatusChange(change);
        const envelope = {
          tenant_id: delivery.restaurantId,
          aggregate_id: delivery.id,
          aggregate_version: next.version,
          actor_id: userId,
        };
        const events = [
          yield* DeliveryStatusChanged.make({ ...envelope, data: { delivery_id: delivery.id, courier_id: delivery.courierId, from: delivery.status, to: target, version: next.version, transition_id: transitionId } }),
        ];
        if (target === "delivered") {
          const order = yield* completeOrder(next, courier.id, userId, at);
          yield* trackingClosedJob.schedule(
            { deliveryId: delivery.id, customerId: delivery.customerId },
            { runAt: new Date(at.getTime() + trackingCloseDelayMs), key: delivery.id },
          );
          events.push(
            yield* DeliveryCompleted.make({
              ...envelope,
              data: { delivery_id: delivery.id, order_id: order.id, courier_id: courier.id, version: next.version, total_minor: order.totalMinor, currency: order.currency },
            }),
          );
        }
        yield* (yield* Outbox).append(events);
        return { change, completed: target === "delivered" };
      }),
    );
    if (result.completed) {
      const delivery = yield* dispatch.findDelivery(deliveryId);
      if (delivery !== null) yield* tryNow(settleCapture(delivery.orderId));
    }
    return result.change satisfies StatusResult;
  }).pipe(withSpan("delivery.updateDeliveryStatus"));
