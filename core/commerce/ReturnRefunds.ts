/**
 * A return's refund that the payment answered `pending` closes once the payment confirms it
 * (spec: returns close when the refund is confirmed). The confirmation job reads the order's
 * payment through the gateway: when its completed refunds cover every refund requested for the
 * order's returns (closed ones and those waiting), the waiting returns are closed, each by a
 * conditional update with a timeline entry; while they do not, the job fails and the runner
 * retries it with backoff, dead-lettering it after its bound. Nothing is closed on a guess.
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

/** The payment has not confirmed the requested refunds yet: the job tries again later. */
export class RefundNotConfirmedYet extends Data.TaggedError("RefundNotConfirmedYet")<{ readonly orderId: OrderId }> {}

/** Closes the order's returns waiting for their refund when the payment's completed refunds cover them; answers how many. */
export const confirmReturnRefunds = (orderId: OrderId) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const order = yield* orders.findOrder(orderId);
    const payment = yield* orders.findPayment(orderId);
    if (order === null || payment === null || payment.paymentId === null) return 0;
    const returns = yield* orders.returnsOf(orderId);
    const waiting = returns.filter((r) => r.status === "refund_requested");
    if (waiting.length === 0) return 0;
    const paid = yield* (yield* PaymentGateway).status({ merchantId: payment.merchantId, paymentId: payment.paymentId });
    const requested = returns.filter((r) => r.status === "refund_requested" || r.status === "closed").reduce((sum, r) => sum + r.refundMinor, 0);
    if (paid.refundedMinor < requested) return yield* Effect.fail(new RefundNotConfirmedYet({ orderId }));
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        let closed = 0;
        for (const ret of waiting) {
          if ((yield* orders.transitionReturn(ret.id, "refund_requested", "closed", at)) === null) continue;
          const current = (yield* orders.findPayment(orderId)) ?? payment;
          yield* orders.updatePayment({ ...current, refundedMinor: current.refundedMinor + ret.refundMinor, updatedAt: at });
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
