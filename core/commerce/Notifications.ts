/**
 * Customer mail from the module's events (spec, Events: OrderConfirmed → e-mail; ShipmentDispatched
 * → notifications, "customer notified"). A consumer for the outbox relay: it decodes the envelope
 * with the module's event union and sends one message whose id is derived from the event id, so a
 * redelivery re-sends the same message (receivers drop repeats); a failing transport fails the
 * delivery, which the relay retries with backoff and dead-letters after its bound (operators
 * replay it). Orders without an e-mail address are skipped.
 */
import { Effect, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { Mailer } from "../../ports/Mailer.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { CommerceEvent } from "./Events.js";
import { withSpan } from "../kernel/Span.js";

/** The consumer's stable name. */
export const customerMailConsumerName = "commerce.customer-mail";

const decode = Schema.decodeUnknown(CommerceEvent);

const money = (minor: number, currency: string): string => `${(minor / 100).toFixed(2)} ${currency}`;

/** Sends the customer's mail for one envelope; answers whether a message was sent. */
export const notifyCustomer = (envelope: EventEnvelope) =>
  Effect.gen(function* () {
    const event = yield* decode(envelope).pipe(Effect.orDie);
    if (event.type !== "OrderConfirmed" && event.type !== "ShipmentDispatched") return false;
    const order = yield* (yield* OrdersRepository).findOrder(event.data.order_id);
    if (order === null || order.email === null) return false;
    const messageId = `<${event.id}@domainkit>`;
    const message =
      event.type === "OrderConfirmed"
        ? {
            subject: `Your order ${order.id} is confirmed`,
            text: `Thank you for your order.\nOrder: ${order.id}\nTotal: ${money(order.totalMinor, order.currency)} (tax ${money(order.taxMinor, order.currency)})\n`,
          }
        : {
            subject: `Your order ${order.id} has shipped`,
            text: `Your order ${order.id} is on its way with ${event.data.carrier}.\nTracking number: ${event.data.tracking_number}\n`,
          };
    yield* (yield* Mailer).send({ messageId, to: order.email, ...message });
    return true;
  }).pipe(withSpan("commerce.notifyCustomer"));
