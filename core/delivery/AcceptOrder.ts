/**
 * POST /restaurant-orders/:id/accept and /reject (staff of the owning restaurant). Accepting is
 * idempotent (the same answer and the same delivery on repeat): the workflow row is locked, one
 * delivery is created (unique per order), RestaurantAcceptedOrder is written to the outbox,
 * the acceptance deadline is cancelled and dispatch starts (for a scheduled order: its timer is set
 * for 20 minutes before the slot) — all in one transaction. A
 * cancelled or rejected order answers 409. Rejecting voids the authorization.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict, ValidationFailed } from "../kernel/Errors.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { RestaurantsRepository } from "../../ports/delivery/RestaurantsRepository.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { notFound, requireUser } from "./Access.js";
import { acceptanceDeadlineJob, cancelWorkflow } from "./AcceptanceDeadline.js";
import { createdTransitionId } from "./DeliveryStatus.js";
import { dispatchRound } from "./Dispatch.js";
import { OrderNotAcceptable } from "./Errors.js";
import { RestaurantAcceptedOrder } from "./Events.js";
import { DeliveryId, type Delivery } from "./model/Delivery.js";
import type { RestaurantOrder } from "./model/RestaurantOrder.js";
import { settleVoid, tryNow } from "./OrderPayments.js";
import { checkOrderTransition } from "./OrderStatus.js";
import { withSpan } from "../kernel/Span.js";
import { scheduledDispatchJob } from "./ScheduledDispatch.js";
import { dispatchStartOf } from "./ScheduledSlot.js";

/** The accepted order and its one delivery. */
export interface AcceptedOrder {
  readonly workflow: RestaurantOrder;
  readonly delivery: Delivery;
}

/** The workflow row, locked, when the caller is staff of its restaurant; NotFound otherwise. */
const staffWorkflow = (orderId: string, userId: string) =>
  Effect.gen(function* () {
    const workflow = yield* (yield* OrdersRepository).findWorkflow(orderId, { forUpdate: true });
    if (workflow === null) return yield* Effect.fail(notFound("order"));
    if (!(yield* (yield* RestaurantsRepository).isStaff(workflow.restaurantId, userId))) return yield* Effect.fail(notFound("order"));
    return workflow;
  });

/** Accepts the order with a promised preparation time (1 to 240 minutes). */
export const acceptOrder = (principal: Principal, orderId: string, input: { readonly prepTimeMinutes: number }) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    if (!Number.isInteger(input.prepTimeMinutes) || input.prepTimeMinutes < 1 || input.prepTimeMinutes > 240) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "prep_time_minutes", message: "must be an integer from 1 to 240" }] }));
    }
    const orders = yield* OrdersRepository;
    const dispatch = yield* DispatchRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const workflow = yield* staffWorkflow(orderId, userId);
        if (workflow.status === "accepted" || workflow.status === "completed") {
          const delivery = yield* dispatch.findDeliveryByOrder(orderId);
          if (delivery === null) return yield* Effect.fail(notFound("delivery"));
          return { workflow, delivery } satisfies AcceptedOrder;
        }
        if (workflow.status !== "authorized") {
          return yield* Effect.fail(new OrderNotAcceptable({ status: workflow.status, detail: `the order is ${workflow.status}` }));
        }
        yield* checkOrderTransition(workflow.status, "accepted");
        const order = yield* orders.findOrder(orderId);
        const restaurant = yield* (yield* RestaurantsRepository).findRestaurant(workflow.restaurantId);
        if (order === null || restaurant === null) return yield* Effect.fail(notFound("order"));
        const at = yield* now;
        const { delivery, created } = yield* dispatch.insertDelivery({
          id: DeliveryId.make(yield* (yield* Ids).next),
          orderId: order.id,
          restaurantId: restaurant.id,
          customerId: order.customerId,
          courierId: null,
          status: "pending",
          version: 1,
          pickupLat: restaurant.lat,
          pickupLng: restaurant.lng,
          dropoffLat: order.dropoffLat,
          dropoffLng: order.dropoffLng,
          dropoffAddress: order.dropoffAddress,
          createdAt: at,
          updatedAt: at,
        });
        if (created) {
          yield* dispatch.insertStatusChange({
            deliveryId: delivery.id,
            transitionId: createdTransitionId,
            fromStatus: null,
            toStatus: "pending",
            version: delivery.version,
            actorId: userId,
            reason: null,
            at,
          });
        }
        const next: RestaurantOrder = {
          ...workflow,
          status: "accepted",
          prepTimeMinutes: input.prepTimeMinutes,
          deliveryId: delivery.id,
          version: workflow.version + 1,
          updatedAt: at,
        };
        if (!(yield* orders.updateWorkflow(next, workflow.version))) {
          return yield* Effect.fail(new Conflict({ code: "concurrent_update", detail: "the order changed meanwhile; retry" }));
        }
        yield* (yield* Jobs).cancel(acceptanceDeadlineJob.kind, orderId);
        const event = yield* RestaurantAcceptedOrder.make({
          tenant_id: restaurant.id,
          aggregate_id: orderId,
          aggregate_version: next.version,
          actor_id: userId,
          data: { order_id: orderId, restaurant_id: restaurant.id, delivery_id: delivery.id, prep_time_minutes: input.prepTimeMinutes },
        });
        yield* (yield* Outbox).append([event]);
        // A scheduled order is offered to couriers by its timer, shortly before its slot.
        const dispatchAt = dispatchStartOf(order.scheduledFor);
        if (dispatchAt !== null && dispatchAt.getTime() > at.getTime()) {
          yield* scheduledDispatchJob.schedule({ deliveryId: delivery.id }, { runAt: dispatchAt, key: delivery.id });
        } else {
          yield* dispatchRound(delivery);
        }
        return { workflow: next, delivery } satisfies AcceptedOrder;
      }),
    );
  }).pipe(withSpan("delivery.acceptOrder"));

/** Rejects the order with a reason; the authorization is voided (retried while the provider is down). */
export const rejectOrder = (principal: Principal, orderId: string, input: { readonly reason: string }) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > 500) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: "must be 1 to 500 characters" }] }));
    }
    const workflow = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const workflow = yield* staffWorkflow(orderId, userId);
        if (workflow.status === "rejected") return workflow;
        if (workflow.status !== "authorized") {
          return yield* Effect.fail(new OrderNotAcceptable({ status: workflow.status, detail: `the order is ${workflow.status}` }));
        }
        yield* (yield* Jobs).cancel(acceptanceDeadlineJob.kind, orderId);
        return yield* cancelWorkflow(workflow, "rejected", reason, userId);
      }),
    );
    yield* tryNow(settleVoid(orderId));
    return (yield* (yield* OrdersRepository).findWorkflow(orderId)) ?? workflow;
  }).pipe(withSpan("delivery.rejectOrder"));
