/**
 * Releasing an order's payment: its authorization voided, or what was captured refunded, under
 * keys derived from the order (`order:<id>/void`, `/refund`), outside database transactions; a
 * free order (total 0) is settled without the gateway. Used by cancellation, by the stranded
 * payment job and by the paths that record an authorization's outcome.
 */
import { Data, Effect } from "effect";
import { PaymentGateway } from "../../ports/PaymentGateway.js";
import type { Order } from "./model/Order.js";
import type { OrderId } from "./model/Ids.js";
import type { OrderPayment } from "./model/OrderPayment.js";
import { savePaymentWithTimeline } from "./OrderRecords.js";

/** The payment is still being processed by the provider: the job tries again later. */
export class PaymentStillProcessing extends Data.TaggedError("PaymentStillProcessing")<{ readonly orderId: OrderId }> {}

/** Voids the order's authorization (or refunds what was captured); the provider call outside transactions. */
export const releasePayment = (order: Order, payment: OrderPayment, actorId: string) =>
  Effect.gen(function* () {
    if (isFreeOrder(payment) && payment.paymentId === null && payment.status === "authorized") {
      return yield* savePaymentWithTimeline(payment, { status: "voided" }, order, "payment.voided", actorId, { amount_minor: 0 });
    }
    if (payment.paymentId === null || payment.status === "voided" || payment.status === "refunded" || payment.status === "declined") return payment;
    const gateway = yield* PaymentGateway;
    const paymentId = payment.paymentId;
    const command = { merchantId: payment.merchantId, paymentId };
    if (payment.status === "captured") {
      const refundable = payment.capturedMinor - payment.refundedMinor;
      yield* gateway.refund({ ...command, idempotencyKey: `order:${order.id}/refund`, amount: { amount_minor: refundable, currency: order.currency } });
      return yield* savePaymentWithTimeline(payment, { status: "refunded", refundedMinor: payment.capturedMinor }, order, "payment.refunded", actorId, { amount_minor: refundable });
    }
    yield* gateway.cancel({ ...command, idempotencyKey: `order:${order.id}/void` });
    return yield* savePaymentWithTimeline(payment, { status: "voided" }, order, "payment.voided", actorId, {});
  });

/** An order whose total is 0 has nothing to authorize, capture, void or refund: the gateway is never asked. */
export const isFreeOrder = (payment: OrderPayment): boolean => payment.amountMinor === 0;

