/**
 * A return's refund closes the return once the payment confirms it (spec: returns close when the
 * refund is confirmed). The job is scheduled by the transaction that moves a return to
 * refund_requested, so it runs whatever happens to the request after that commit. For each of the
 * order's waiting returns it first sends the refund under the return's key (`return:<id>/refund`:
 * the payment acts once per key, so a refund already sent is answered, not sent again; one that
 * never left, because the process stopped, is sent now). A refund the payment answers `failed` is
 * put on the order's timeline (`return.refund_failed`) for support and no longer waited for. Then
 * the payment is read through the gateway: when its completed refunds cover every refund requested
 * and not failed, the waiting returns are closed, each by a conditional update with a timeline
 * entry; while they do not, the job fails and the runner retries it with backoff. Nothing is
 * closed on a guess.
 */
import { Data, Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { recordTimeline } from "./OrderRecords.js";
import type { CommerceServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";
import { OrderId } from "./model/Ids.js";

/** The payment idempotency key of a return's refund: one refund per return, whatever the retries. */
export const returnRefundKey = (returnId: string): string => `return:${returnId}/refund`;

/** The key of a return's confirmation job. */
export const returnRefundJobKey = (returnId: string): string => `return:${returnId}`;

/** The receipts' consumer name of the job's own records (a refused refund is recorded once). */
export const returnRefundsConsumerName = "commerce.return-refunds";

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
      const refund = yield* gateway.refund({
        merchantId: payment.merchantId,
        paymentId,
        idempotencyKey: returnRefundKey(ret.id),
        amount: { amount_minor: ret.refundMinor, currency: order.currency },
      });
      if (refund.status === "failed") failed.add(ret.id);
    }
    if (failed.size > 0) {
      const at = yield* now;
      yield* (yield* Transactions).run(
        Effect.forEach(requested.filter((r) => failed.has(r.id)), (ret) =>
          // Once per return, however often the job runs (the payment answers the same refusal under the same key).
          Effect.flatMap(orders.receiveEvent(returnRefundsConsumerName, `refund_failed:${ret.id}`, at), (fresh) =>
            fresh ? recordTimeline(order, "return.refund_failed", "system:commerce-refunds", { return_id: ret.id, amount_minor: ret.refundMinor }) : Effect.void,
          ),
        ),
      );
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
