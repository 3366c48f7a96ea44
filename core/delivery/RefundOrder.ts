/**
 * POST /operator/orders/:id/refund (spec: "Every manual reassignment, refund and state override
 * records actor and reason"; Authentication 2: dispatcher or support, region-scoped, sensitive
 * actions audited; Authentication 6: support overrides require a reason and step-up). The caller
 * dispatches the region the order's delivery is picked up in (else 404, like an unknown order),
 * signed in recently enough (else 403 step_up_required), and gives a reason (1 to 500
 * characters). Only a completed order whose payment is captured is refunded (else 409
 * order_not_refundable); `amount_minor` defaults to what is left of the captured amount, and a
 * refund above it is 409 refund_exceeds_captured. Under the order's workflow lock the refund is
 * recorded pending with its keyed job; the gateway is called after commit (OrderRefunds.ts).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { ValidationFailed } from "../kernel/Errors.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { DispatchRepository } from "../../ports/delivery/DispatchRepository.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { Refunds } from "../../ports/delivery/Refunds.js";
import { notFound } from "./Access.js";
import { OrderNotRefundable, RefundExceedsCaptured } from "./Errors.js";
import { dispatcherRegion, inRegion } from "./ListRegionDeliveries.js";
import { OrderId, RefundId } from "./model/Ids.js";
import type { Refund } from "./model/Refund.js";
import { paymentFallbackAt, tryNow } from "./OrderPayments.js";
import { refundJob, settleRefund } from "./OrderRefunds.js";
import { requireStepUp } from "./StepUp.js";

/** The longest reason a refund takes. */
export const maxRefundReasonLength = 500;

/** The order `orderId` when its delivery is picked up in the calling dispatcher's region; 404 for anyone else or any other order. */
export const orderOfRegion = (principal: Principal, orderId: string) =>
  Effect.gen(function* () {
    const { userId, region } = yield* dispatcherRegion(principal).pipe(Effect.mapError(() => notFound("order")));
    const orders = yield* OrdersRepository;
    const workflow = yield* orders.findWorkflow(orderId);
    const delivery = workflow === null || workflow.deliveryId === null ? null : yield* (yield* DispatchRepository).findDelivery(workflow.deliveryId);
    const order = delivery === null || !inRegion(delivery, region) ? null : yield* orders.findOrder(orderId);
    if (order === null) return yield* Effect.fail(notFound("order"));
    return { userId, order };
  });

/** Refunds `amountMinor` (default: all that is left) of the order for `reason`; answers the refund as it stands after the first try. */
export const refundOrder = (principal: Principal, orderId: string, input: { readonly amountMinor?: number | undefined; readonly reason: string }) =>
  Effect.gen(function* () {
    const { userId, order } = yield* orderOfRegion(principal, orderId);
    yield* requireStepUp(principal, "a refund");
    const reason = input.reason.trim();
    if (reason.length < 1 || reason.length > maxRefundReasonLength) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "reason", message: `a refund needs a reason (1 to ${maxRefundReasonLength} characters)` }] }));
    }
    if (input.amountMinor !== undefined && (!Number.isSafeInteger(input.amountMinor) || input.amountMinor < 1)) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "amount_minor", message: "must be a positive integer" }] }));
    }
    const orders = yield* OrdersRepository;
    const refunds = yield* Refunds;
    const id = RefundId.make(yield* (yield* Ids).next);
    const refund = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const workflow = yield* orders.findWorkflow(order.id, { forUpdate: true });
        if (workflow === null || workflow.status !== "completed" || workflow.paymentState !== "captured") {
          return yield* Effect.fail(
            new OrderNotRefundable({
              status: workflow?.status ?? "unknown",
              paymentState: workflow?.paymentState ?? "unknown",
              detail: "Only a completed order whose payment is captured can be refunded.",
            }),
          );
        }
        const refundable = order.totalMinor - (yield* refunds.committedMinor(order.id));
        const amountMinor = input.amountMinor ?? refundable;
        if (refundable < 1 || amountMinor > refundable) {
          return yield* Effect.fail(new RefundExceedsCaptured({ refundableMinor: refundable, currency: order.currency, detail: `At most ${refundable} ${order.currency} can still be refunded.` }));
        }
        const at = yield* now;
        const refund: Refund = {
          id,
          orderId: OrderId.make(order.id),
          amountMinor,
          currency: order.currency,
          status: "pending",
          actorId: userId,
          reason,
          failure: null,
          createdAt: at,
          settledAt: null,
        };
        yield* refunds.insert(refund);
        yield* refundJob.schedule({ refundId: id, orderId: order.id }, { runAt: paymentFallbackAt(at), key: `refund:${id}` });
        return refund;
      }),
    );
    yield* tryNow(settleRefund(id));
    return (yield* refunds.find(id)) ?? refund;
  }).pipe(withSpan("delivery.refundOrder"));
