/**
 * Customer mail from the module's events (spec, Events: OrderConfirmed → e-mail; ShipmentDispatched
 * → notifications, "customer notified"). The consumer only schedules a durable job per event (keyed
 * by the event id, in the consumer's transaction), and the job sends the message: no mail
 * transport is ever called while a database transaction is open (on SQLite that would hold the
 * write lock for as long as the SMTP server takes, and a relay batch would hold it for every
 * message of the batch). The message id derives from the event id, so a retried job re-sends the
 * same message (receivers drop repeats); a failing transport fails the job, which the runner
 * retries with backoff and dead-letters after its bound. Orders without an e-mail are skipped.
 */
import { Effect, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { Mailer } from "../../ports/Mailer.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { CommerceEvent } from "./Events.js";
import { OrderId } from "./model/Ids.js";
import { withSpan } from "../kernel/Span.js";

/** The consumer's stable name. */
export const customerMailConsumerName = "commerce.customer-mail";

const decode = Schema.decodeUnknown(CommerceEvent);

const money = (minor: number, currency: string): string => `${(minor / 100).toFixed(2)} ${currency}`;

/** What one customer message is about: the event it answers, and the shipment for tracking mail. */
const CustomerMail = Schema.Struct({
  event_id: Schema.String,
  order_id: OrderId,
  shipment: Schema.NullOr(Schema.Struct({ carrier: Schema.String, tracking_number: Schema.String })),
});
type CustomerMail = typeof CustomerMail.Type;

/** Sends one customer message; answers whether one was sent (none without an order e-mail). */
export const sendCustomerMail = (mail: CustomerMail) =>
  Effect.gen(function* () {
    const order = yield* (yield* OrdersRepository).findOrder(mail.order_id);
    if (order === null || order.email === null) return false;
    const message =
      mail.shipment === null
        ? {
            subject: `Your order ${order.id} is confirmed`,
            text: `Thank you for your order.\nOrder: ${order.id}\nTotal: ${money(order.totalMinor, order.currency)} (tax ${money(order.taxMinor, order.currency)})\n`,
          }
        : {
            subject: `Your order ${order.id} has shipped`,
            text: `Your order ${order.id} is on its way with ${mail.shipment.carrier}.\nTracking number: ${mail.shipment.tracking_number}\n`,
          };
    yield* (yield* Mailer).send({ messageId: `<${mail.event_id}@domainkit>`, to: order.email, ...message });
    return true;
  }).pipe(withSpan("commerce.sendCustomerMail"));

/** The mail job: payload `{ event_id, order_id, shipment }`. */
export const customerMailJob = defineJob({
  kind: "commerce.customer_mail",
  payload: CustomerMail,
  handle: (payload) => Effect.asVoid(sendCustomerMail(payload)),
});

/** Schedules the customer's message for one envelope (once per event); answers whether one was due. */
export const notifyCustomer = (envelope: EventEnvelope) =>
  Effect.gen(function* () {
    const event = yield* decode(envelope).pipe(Effect.orDie);
    if (event.type !== "OrderConfirmed" && event.type !== "ShipmentDispatched") return false;
    const shipment = event.type === "ShipmentDispatched" ? { carrier: event.data.carrier, tracking_number: event.data.tracking_number } : null;
    const occurredAt = new Date(envelope.occurred_at);
    yield* customerMailJob.schedule({ event_id: event.id, order_id: event.data.order_id, shipment }, { runAt: occurredAt, key: event.id });
    return true;
  }).pipe(withSpan("commerce.notifyCustomer"));
