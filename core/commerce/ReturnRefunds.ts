/**
 * A return's refund closes the return once the payment confirms it (spec, E-commerce States:
 * "return | refund webhook confirmation | closed"). The job is scheduled by the transaction that
 * moves a return to refund_requested, so it runs whatever happens to the request after that
 * commit. For each of the order's waiting returns it first sends the refund under the key of the
 * return's refund attempt (`return:<id>/refund`, then `/refund/<n>` for later attempts: the
 * payment acts once per key, so a refund already sent is answered, not sent again; one that never
 * left, because the process stopped, is sent now). A refund the payment refuses moves its return
 * to `refund_failed` (on the timeline, ReturnRefundFailed through the outbox), from which support
 * requests it again (Returns.ts). Then the payment is read through the gateway: when its completed
 * refunds cover every refund still waiting and those closed, the waiting returns are closed, each
 * by a conditional update with a timeline entry; while they do not, the job fails and the runner
 * retries it with backoff. Nothing is closed on a guess.
 */
import { Data, Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { Outbox } from "../../ports/Outbox.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import type { Order } from "./model/Order.js";
import type { Return } from "./model/Return.js";
import { ReturnRefundFailed } from "./Events.js";
import { recordTimeline } from "./OrderRecords.js";
import type { CommerceServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";
import { OrderId } from "./model/Ids.js";

/**
 * The payment idempotency key of a return's refund attempt: one refund per attempt, whatever the
 * retries (the first attempt keeps the key returns had before attempts were counted).
 */
export const returnRefundKey = (returnId: string, attempt = 1): string => (attempt === 1 ? `return:${returnId}/refund` : `return:${returnId}/refund/${attempt}`);

/** The key of a return's confirmation job, per refund attempt. */
export const returnRefundJobKey = (returnId: string, attempt = 1): string => (attempt === 1 ? `return:${returnId}` : `return:${returnId}/${attempt}`);

/**
 * Sends the return's refund attempt under its key and answers its status. The payment refusing it
 * as more than is left to refund (the merchant refunded the capture elsewhere) is a refused refund
 * like the provider's `failed`: the return gets refund_failed, never a retry that cannot succeed.
 */
export const sendReturnRefund = (merchantId: string, paymentId: string, currency: string, ret: Return) =>
  Effect.flatMap(PaymentGateway, (gateway) =>
    gateway
      .refund({ merchantId, paymentId, idempotencyKey: returnRefundKey(ret.id, ret.refundAttempt), amount: { amount_minor: ret.refundMinor, currency } })
      .pipe(
        Effect.map((refund) => ({ status: refund.status, refundId: refund.refundId as string | null })),
        Effect.catchTag("RefundExceedsCapturedAmount", () => Effect.succeed({ status: "failed" as const, refundId: null })),
      ),
  );

/**
 * Records that the payment refused the return's refund attempt, in one transaction: the return
 * moves refund_requested → refund_failed (only while it waits for that attempt, so a refusal
 * answered twice, or of an attempt support already replaced, moves nothing), with its timeline
 * entry and ReturnRefundFailed. The return after, or null when nothing moved.
 */
export const recordRefundRefused = (order: Pick<Order, "id" | "storeId" | "currency">, ret: Return, actorId: string) =>
  Effect.flatMap(Transactions, (transactions) =>
    transactions.run(
      Effect.gen(function* () {
        const failed = yield* (yield* OrdersRepository).failReturnRefund(ret.id, ret.refundAttempt, yield* now);
        if (failed === null) return null;
        yield* recordTimeline(order, "return.refund_failed", actorId, { return_id: ret.id, amount_minor: ret.refundMinor, attempt: ret.refundAttempt });
        const event = yield* ReturnRefundFailed.make({
          tenant_id: order.storeId,
          aggregate_id: order.id,
          aggregate_version: failed.version,
          actor_id: actorId,
          data: { return_id: ret.id, order_id: order.id, amount_minor: ret.refundMinor, currency: order.currency, attempt: ret.refundAttempt },
        });
        yield* (yield* Outbox).append([event]);
        return failed;
      }),
    ),
  );

/** How long after a refund is requested its job first looks at it. */
export const returnRefundCheckMs = 60_000;

/** The payment has not confirmed the requested refunds yet: the job tries again later. */
export class RefundNotConfirmedYet extends Data.TaggedError("RefundNotConfirmedYet")<{ readonly orderId: OrderId }> {}

/** Sends the waiting returns' refunds (once per key), then closes those the payment's completed refunds cover; answers how many closed. */
export const confirmReturnRefunds = (orderId: OrderId) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const gateway = yield* PaymentGateway;
    const order = yield* orders.findOrder(orderId);
    const payment = yield* orders.findPayment(orderId);
    if (order === null || payment === null || payment.paymentId === null) return 0;
    const paymentId = payment.paymentId;
    const returns = yield* orders.returnsOf(orderId);
    const requested = returns.filter((r) => r.status === "refund_requested");
    if (requested.length === 0) return 0;
    // Nothing is refunded before the order's capture is recorded (its own job records it): try again later.
    if (payment.status !== "captured") return yield* Effect.fail(new RefundNotConfirmedYet({ orderId }));
    const failed = new Set<string>();
    for (const ret of requested) {
      const refund = yield* sendReturnRefund(payment.merchantId, paymentId, order.currency, ret);
      if (refund.status === "failed") {
        failed.add(ret.id);
        yield* recordRefundRefused(order, ret, "system:commerce-refunds");
      }
    }
    const waiting = requested.filter((r) => !failed.has(r.id));
    if (waiting.length === 0) return 0;
    const paid = yield* gateway.status({ merchantId: payment.merchantId, paymentId });
    const expected = returns.filter((r) => (r.status === "refund_requested" && !failed.has(r.id)) || r.status === "closed").reduce((sum, r) => sum + r.refundMinor, 0);
    if (paid.refundedMinor < expected) return yield* Effect.fail(new RefundNotConfirmedYet({ orderId }));
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        let closed = 0;
        for (const ret of waiting) {
          if ((yield* orders.transitionReturn(ret.id, "refund_requested", "closed", at)) === null) continue;
          yield* orders.addRefundedMinor(orderId, ret.refundMinor, at);
          yield* recordTimeline(order, "return.closed", "system:commerce-refunds", { return_id: ret.id, confirmed_refunded_minor: paid.refundedMinor });
          closed += 1;
        }
        return closed;
      }),
    );
  }).pipe(withSpan("commerce.confirmReturnRefunds"));

/** The durable job that confirms pending return refunds of an order (retried with backoff, then dead-lettered). */
export const returnRefundJob: JobDefinition<{ readonly orderId: OrderId }, CommerceServices> = defineJob({
  kind: "commerce.confirm-return-refunds",
  payload: Schema.Struct({ orderId: OrderId }),
  handle: ({ orderId }) => Effect.asVoid(confirmReturnRefunds(orderId)),
});
