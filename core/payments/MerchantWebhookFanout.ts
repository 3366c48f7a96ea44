/**
 * Outgoing merchant webhooks, step one: an outbox consumer that turns each PaymentSucceeded,
 * RefundSucceeded, ReconciliationMismatchFound and ReconciliationExceptionsOpen event into one delivery row per subscribed
 * endpoint (UNIQUE per endpoint and event, so a redelivered event adds nothing) and schedules
 * one durable job per delivery, in the consumer's transaction.
 */
import { Effect, Option, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { MerchantWebhookEventType } from "./model/WebhookEndpoint.js";
import { type WebhookDelivery } from "./model/WebhookDelivery.js";
import { merchantWebhookDeliveryJob } from "./MerchantWebhookDelivery.js";
import { PaymentsEvent } from "./Events.js";
import { withSpan } from "../kernel/Span.js";
import { WebhookDeliveryId } from "./model/Ids.js";

/** The job kind that POSTs one delivery. */
export { merchantWebhookDeliveryJobKind } from "./MerchantWebhookDelivery.js";

/** Attempts per delivery before it is dead-lettered (the job runner's backoff spaces them). */
export const defaultMerchantWebhookMaxAttempts = 8;

/**
 * The JSON text sent for an event: its immutable id (also the `Webhook-Id` header), type, time,
 * merchant and data. Stored with the delivery, so every attempt sends the same bytes.
 */
export const merchantWebhookBody = (event: EventEnvelope): string =>
  JSON.stringify({ id: event.id, type: event.type, created_at: event.occurred_at, merchant_id: event.tenant_id, data: event.data });

/** Options of the fan-out consumer. */
export interface MerchantWebhookFanoutOptions {
  /** Attempts per delivery before it is dead (default 8). */
  readonly maxAttempts?: number;
}

const isMerchantWebhookEventType = Schema.is(MerchantWebhookEventType);
const decodeEvent = Schema.decodeUnknownOption(PaymentsEvent);

/** The outbox consumer creating merchant webhook deliveries (structurally an adapters/worker Consumer). */
export const makeMerchantWebhookFanout = (options: MerchantWebhookFanoutOptions = {}) => ({
  name: "payments.merchant_webhooks",
  // The type alone decides (cheap: the relay asks this of every module's events); `handle` decodes.
  handles: (event: EventEnvelope): boolean => isMerchantWebhookEventType(event.type),
  handle: (envelope: EventEnvelope): Effect.Effect<void, never, WebhookEndpoints | Jobs | Ids> =>
    Effect.gen(function* () {
      const decoded = decodeEvent(envelope);
      if (Option.isNone(decoded)) {
        // Only this module's commands write these types, through the same Schemas: a misfit is a
        // bug to report, not a webhook to send (nor a reason to retry the event forever).
        return yield* Effect.logWarning("merchant webhook fan-out: event does not fit its type", { event_id: envelope.id, type: envelope.type });
      }
      const event = decoded.value;
      const store = yield* WebhookEndpoints;
      const ids = yield* Ids;
      const at = yield* now;
      // The stored envelope's own data, so merchants receive exactly what was recorded.
      const body = merchantWebhookBody(envelope);
      for (const endpoint of yield* store.subscribed(event.tenant_id, event.type)) {
        const delivery: WebhookDelivery = {
          id: WebhookDeliveryId.make(yield* ids.next),
          endpointId: endpoint.id,
          merchantId: endpoint.merchantId,
          eventId: event.id,
          eventType: event.type,
          body,
          status: "pending",
          attempts: 0,
          lastError: null,
          createdAt: at,
          updatedAt: at,
        };
        if (!(yield* store.insertDelivery(delivery))) continue;
        yield* merchantWebhookDeliveryJob.schedule(
          { delivery_id: delivery.id },
          { key: delivery.id, runAt: at, maxAttempts: options.maxAttempts ?? defaultMerchantWebhookMaxAttempts },
        );
      }
    }).pipe(withSpan("Payments.merchantWebhookFanout")),
});
