/** GET /orders/:id (the customer): the order snapshot, lines, workflow and `delivery: {id, status, courier_id, version}`. */
import { Effect } from "effect";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import type { Principal } from "../../ports/Principal.js";
import { notFound, requireUser } from "./Access.js";
import type { DeliverySummary } from "./model/Delivery.js";
import type { PlacedOrder } from "./PlaceOrder.js";
import { withSpan } from "../kernel/Span.js";
import { independentReads } from "../kernel/IndependentReads.js";

export interface CustomerOrder extends PlacedOrder {
  readonly delivery: DeliverySummary | null;
}

/** The caller's order; another customer's order is NotFound. */
export const getOrder = (principal: Principal, orderId: string) =>
  Effect.gen(function* () {
    const customerId = yield* requireUser(principal);
    const orders = yield* OrdersRepository;
    const [order, workflow] = yield* independentReads(orders.findOrder(orderId), orders.findWorkflow(orderId));
    if (order === null || workflow === null || order.customerId !== customerId) return yield* Effect.fail(notFound("order"));
    // The caller's order: its delivery and lines are read at once.
    const [delivery, lines] = yield* independentReads((yield* DispatchRepository).findDeliveryByOrder(orderId), orders.orderLines(orderId));
    return {
      order,
      lines,
      workflow,
      delivery: delivery === null ? null : { id: delivery.id, status: delivery.status, courierId: delivery.courierId, version: delivery.version },
    } satisfies CustomerOrder;
  }).pipe(withSpan("delivery.getOrder"));
