/**
 * The module's outbox consumers (spec, Events): OrderConfirmed → fulfillment task (event receipt
 * unique per consumer and event) and receipt mail; ShipmentDispatched → tracking mail. The relay
 * retries a failing delivery with backoff and dead-letters it after its bound; operators replay.
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { OrderConfirmed, ShipmentDispatched } from "./Events.js";
import { createFulfillmentTask, fulfillmentConsumerName } from "./FulfillmentTasks.js";
import { customerMailConsumerName, notifyCustomer } from "./Notifications.js";

/** OrderConfirmed → the order's fulfillment task (idempotent on redelivery). */
export const fulfillmentTasksConsumer = {
  name: fulfillmentConsumerName,
  handles: (event: EventEnvelope): boolean => event.type === OrderConfirmed.type,
  handle: (event: EventEnvelope) => Effect.asVoid(createFulfillmentTask(event)),
};

/** OrderConfirmed → receipt, ShipmentDispatched → tracking mail. */
export const customerMailConsumer = {
  name: customerMailConsumerName,
  handles: (event: EventEnvelope): boolean => event.type === OrderConfirmed.type || event.type === ShipmentDispatched.type,
  handle: (event: EventEnvelope) => Effect.asVoid(notifyCustomer(event)),
};

/** Every consumer of the module. */
export const commerceConsumers = [fulfillmentTasksConsumer, customerMailConsumer] as const;
