/**
 * Appending the payment module's events (core/payments/Events.ts) for captured intents and
 * completed refunds, in the transaction that makes them true.
 */
import { Effect } from "effect";
import type { Ids } from "../../ports/Ids.js";
import { Outbox } from "../../ports/Outbox.js";
import { PaymentSucceeded, RefundSucceeded } from "./Events.js";
import type { PaymentIntent } from "./model/PaymentIntent.js";
import type { Refund } from "./model/Refund.js";

/** The event types this module emits for intents and refunds. */
export const paymentEventTypes = { paymentSucceeded: PaymentSucceeded.type, refundSucceeded: RefundSucceeded.type } as const;

/** Appends PaymentSucceeded for a captured intent. */
export const emitPaymentSucceeded = (intent: PaymentIntent, actor: string): Effect.Effect<void, never, Outbox | Ids> =>
  Effect.gen(function* () {
    const event = yield* PaymentSucceeded.make({
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
    const event = yield* RefundSucceeded.make({
      tenant_id: refund.merchantId,
      aggregate_id: refund.intentId,
      aggregate_version: intentVersion,
      actor_id: actor,
      data: { refund_id: refund.id, payment_intent_id: refund.intentId, amount_minor: refund.amountMinor, currency: refund.currency },
    });
    yield* (yield* Outbox).append([event]);
  });
