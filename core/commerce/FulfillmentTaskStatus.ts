/**
 * A fulfillment task's status moves, told to the store's warehouse operators (FulfillmentTaskStatusChanged,
 * through the outbox in the caller's transaction): the task opened when its order was confirmed,
 * and it is done when the order is dispatched or its cancellation requested. The event carries
 * what an operator's task list shows (task, order, status), never the order's customer, totals
 * or payment, and its actor is the system: who dispatched or cancelled is not an operator's business.
 */
import { Effect } from "effect";
import { Outbox } from "../../ports/Outbox.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { FulfillmentTaskStatusChanged } from "./Events.js";
import type { FulfillmentTask } from "./model/FulfillmentTask.js";
import type { OrderId } from "./model/Ids.js";

/** The actor of every task status event. */
export const fulfillmentSystemActor = "system:commerce-fulfillment";

/** Publishes that `task` is now `status`, in the caller's transaction (aggregate: its order, at its version). */
export const publishTaskStatus = (task: Pick<FulfillmentTask, "id" | "storeId" | "orderId">, status: FulfillmentTask["status"]) =>
  Effect.gen(function* () {
    const order = yield* (yield* OrdersRepository).findOrder(task.orderId);
    const event = yield* FulfillmentTaskStatusChanged.make({
      tenant_id: task.storeId,
      aggregate_id: task.orderId,
      aggregate_version: order?.version ?? 0,
      actor_id: fulfillmentSystemActor,
      data: { task_id: task.id, order_id: task.orderId, status },
    });
    yield* (yield* Outbox).append([event]);
  });

/** Marks the order's task done and, when it was open, publishes so; an order without a task changes nothing. */
export const closeFulfillmentTask = (orderId: OrderId) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const task = yield* orders.fulfillmentTaskOfOrder(orderId);
    yield* orders.completeFulfillmentTask(orderId);
    if (task !== null && task.status === "open") yield* publishTaskStatus(task, "done");
  });
