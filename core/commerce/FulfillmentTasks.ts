/**
 * The fulfillment side of OrderConfirmed (spec, Events: fulfillment keeps an event receipt with
 * a unique constraint so task creation is idempotent on redelivery). The consumer decodes the
 * envelope with the module's event union, records its receipt and creates the order's task in
 * one transaction: a redelivered event (same id) and a second event about the same order
 * (the task is unique per order) both change nothing; nor does one that arrives after the order's
 * cancellation was requested or it shipped (a cancellation request closes the order's task).
 * Warehouse operators list open tasks.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { Ids } from "../../ports/Ids.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { requireStaffRole } from "./Access.js";
import { CommerceEvent } from "./Events.js";
import { withSpan } from "../kernel/Span.js";
import { FulfillmentTaskId, StoreId } from "./model/Ids.js";

/** The consumer's stable name (its receipts are keyed by it). */
export const fulfillmentConsumerName = "commerce.fulfillment-tasks";

const decode = Schema.decodeUnknown(CommerceEvent);

/** Applies one delivered envelope; answers whether a task was created by this delivery. */
export const createFulfillmentTask = (envelope: EventEnvelope) =>
  Effect.gen(function* () {
    const event = yield* decode(envelope).pipe(Effect.orDie);
    if (event.type !== "OrderConfirmed") return false;
    const orders = yield* OrdersRepository;
    const id = FulfillmentTaskId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        if (!(yield* orders.receiveEvent(fulfillmentConsumerName, event.id, at))) return false;
        // Under the order's lock (cancellation and dispatch take it): an order whose cancellation
        // was requested, or that has shipped, before this delivery has nothing left to fulfil.
        yield* orders.lockOrder(event.data.order_id);
        if ((yield* orders.findOrder(event.data.order_id))?.status !== "confirmed") return false;
        return yield* orders.insertFulfillmentTask({ id, storeId: StoreId.make(event.tenant_id), orderId: event.data.order_id, status: "open", createdAt: at });
      }),
    );
  }).pipe(withSpan("commerce.createFulfillmentTask"));

/** Query: a store's open fulfillment tasks (warehouse operators). */
export const openFulfillmentTasks = (userId: string, storeId: StoreId) =>
  Effect.gen(function* () {
    yield* requireStaffRole(storeId, userId, "warehouse_operator");
    return yield* (yield* OrdersRepository).fulfillmentTasks(storeId, "open");
  }).pipe(withSpan("commerce.openFulfillmentTasks"));
