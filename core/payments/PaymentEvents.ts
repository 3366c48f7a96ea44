/**
 * Domain events of the payment module, appended to the outbox in the transaction that makes
 * them true (merchant webhook delivery and reports consume them in a later slice). Payloads
 * carry ids and amounts only: never tokens or secrets.
 */
import { Effect } from "effect";
import { makeEvent } from "../kernel/EventEnvelope.js";
import type { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import type { Refund } from "./model/Refund.js";

/** The event types this module emits. */
export const paymentEventTypes = { paymentSucceeded: "PaymentSucceeded", refundSucceeded: "RefundSucceeded" } as const;

/** Appends PaymentSucceeded for a captured intent. */
export const emitPaymentSucceeded = (intent: PaymentIntent, actor: string): Effect.Effect<void, never, Outbox | Ids> =>
  Effect.gen(function* () {
    const event = yield* makeEvent({
      type: paymentEventTypes.paymentSucceeded,
      tenant_id: intent.merchantId,
      aggregate_id: intent.id,
      aggregate_version: intent.version,
      actor_id: actor,
      data: { payment_intent_id: intent.id, amount_captured_minor: intent.amountCapturedMinor, currency: intent.currency },
    });
    yield* (yield* Outbox).append([event]);
  });

/** Appends RefundSucceeded for a completed refund; `intentVersion` orders it on the intent. */
export const emitRefundSucceeded = (refund: Refund, intentVersion: number, actor: string): Effect.Effect<void, never, Outbox | Ids> =>
  Effect.gen(function* () {
    const event = yield* makeEvent({
      type: paymentEventTypes.refundSucceeded,
      tenant_id: refund.merchantId,
      aggregate_id: refund.intentId,
      aggregate_version: intentVersion,
      actor_id: actor,
      data: { refund_id: refund.id, payment_intent_id: refund.intentId, amount_minor: refund.amountMinor, currency: refund.currency },
    });
    yield* (yield* Outbox).append([event]);
  });
