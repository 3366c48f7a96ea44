/**
 * Outgoing merchant webhooks, step two: the durable job that POSTs one delivery. The delivery is
 * read in one transaction, checked against the host's webhook target settings (a refused URL is
 * not called: the attempt fails), sent outside any transaction (signed by the sender port with every
 * secret live at that time: the current one and, during a rotation's overlap, the previous), and the
 * attempt recorded in a second transaction. A failed attempt fails the job, so the job runner
 * retries it with its exponential backoff; at the job's bound the delivery is marked dead and
 * waits for an operator replay (dual control, OperatorReplay.ts).
 */
import { Effect, Schema } from "effect";
import { DomainError } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { Ids } from "../../ports/Ids.js";
import type { Job } from "../../ports/Jobs.js";
import { Transactions } from "../../ports/Transactions.js";
import { WebhookEndpoints } from "../../ports/payments/WebhookEndpoints.js";
import { MerchantWebhookSender, type SendResult } from "../../ports/payments/WebhookEndpointsSender.js";
import { WebhookTargetSettings } from "../../ports/payments/WebhookTargetSettings.js";
import { webhookUrlAllowed } from "./WebhookTarget.js";
import type { WebhookDelivery } from "./model/WebhookDelivery.js";
import { withSpan } from "../kernel/Span.js";
import { DeliveryAttemptId, WebhookDeliveryId } from "./model/Ids.js";

/** The job kind that POSTs one delivery. */
export const merchantWebhookDeliveryJobKind = "payments.merchant_webhook.deliver";

/** One attempt got no 2xx; the job runner retries (or dead-letters) the job. */
export class MerchantWebhookAttemptFailed extends DomainError("MerchantWebhookAttemptFailed", "merchant_webhook_attempt_failed", "unavailable")<{
  readonly deliveryId: string;
  readonly reason: string;
}> {
  override get message(): string {
    return `delivery ${this.deliveryId}: ${this.reason}`;
  }
}

/** What one run of the job did. */
export type DeliveryOutcome = "succeeded" | "retrying" | "dead" | "skipped";

const finish = (delivery: WebhookDelivery, changes: Partial<WebhookDelivery>, at: Date) =>
  Effect.flatMap(WebhookEndpoints, (store) => store.updateDelivery({ ...delivery, ...changes, updatedAt: at }));

/** The attempt of an endpoint whose URL the current settings refuse: nothing is sent. */
const refusedTarget: SendResult = { ok: false, statusCode: null, error: "the endpoint URL is not allowed" };

/** Runs one attempt of delivery `deliveryId` as `job` (job.attempts counts this attempt). */
export const deliverMerchantWebhook = (
  deliveryId: WebhookDeliveryId,
  job: Job,
): Effect.Effect<DeliveryOutcome, MerchantWebhookAttemptFailed, WebhookEndpoints | WebhookTargetSettings | MerchantWebhookSender | Transactions | Ids> =>
  Effect.gen(function* () {
    const store = yield* WebhookEndpoints;
    const transactions = yield* Transactions;
    const prepared = yield* transactions.run(
      Effect.gen(function* () {
        const delivery = yield* store.findDelivery(deliveryId, { forUpdate: true });
        if (delivery === null || delivery.status !== "pending") return null;
        // The secrets live now: during a rotation's overlap the previous one signs too.
        const signing = yield* store.signingEndpoint(delivery.endpointId, yield* now);
        if (signing === null || signing.endpoint.deletedAt !== null) {
          // A deleted endpoint receives nothing more; the delivery ends visibly rather than silently.
          yield* finish(delivery, { status: "dead", lastError: "endpoint deleted" }, yield* now);
          return null;
        }
        return { delivery, signing };
      }),
    );
    if (prepared === null) return "skipped" as const;
    const sentAt = yield* now;
    // A URL stored under other settings (or older rules) is not called: the attempt fails, saying nothing about the target.
    const allowed = webhookUrlAllowed(prepared.signing.endpoint.url, (yield* WebhookTargetSettings).allowLoopbackHttp);
    const result = allowed
      ? yield* (yield* MerchantWebhookSender).send({
          url: prepared.signing.endpoint.url,
          secrets: prepared.signing.signingSecrets,
          eventId: prepared.delivery.eventId,
          body: prepared.delivery.body,
          timestampSeconds: Math.floor(sentAt.getTime() / 1000),
        })
      : refusedTarget;
    const outcome = yield* transactions.run(
      Effect.gen(function* () {
        const current = yield* store.findDelivery(deliveryId, { forUpdate: true });
        if (current === null || current.status !== "pending") return "skipped" as const;
        const number = current.attempts + 1;
        yield* store.appendAttempt({
          id: DeliveryAttemptId.make(yield* (yield* Ids).next),
          deliveryId,
          number,
          statusCode: result.statusCode,
          error: result.error,
          attemptedAt: sentAt,
        });
        const status = result.ok ? "succeeded" : job.attempts >= job.maxAttempts ? "dead" : "pending";
        yield* finish(current, { status, attempts: number, lastError: result.ok ? null : result.error }, yield* now);
        return status === "succeeded" ? ("succeeded" as const) : status === "dead" ? ("dead" as const) : ("retrying" as const);
      }),
    );
    if (outcome === "retrying" || outcome === "dead") {
      return yield* Effect.fail(new MerchantWebhookAttemptFailed({ deliveryId, reason: result.error ?? `status ${String(result.statusCode)}` }));
    }
    return outcome;
  }).pipe(withSpan("Payments.deliverMerchantWebhook"));

/** The durable job of merchant webhook deliveries (payload `{ delivery_id }`). */
export const merchantWebhookDeliveryJob = defineJob({
  kind: merchantWebhookDeliveryJobKind,
  payload: Schema.Struct({ delivery_id: WebhookDeliveryId }),
  handle: ({ delivery_id }, job) => Effect.asVoid(deliverMerchantWebhook(delivery_id, job)),
});
