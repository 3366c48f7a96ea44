/**
 * An order placed while the provider's answer was unknown is `payment_pending` (202); this job
 * resolves it by looking the payment up (never guessing): held → the order is authorized and
 * the restaurant may accept it; declined or cancelled → the order is cancelled as `declined`
 * and OrderCancelled (reason payment_declined) tells the customer and the restaurant;
 * still processing, or the provider is down → the job retries with backoff. When even the
 * payment's id was lost (the payment service could not be reached), the quote's authorization
 * is sent again as its placement recorded it: the gateway answers the payment the key made, or
 * makes it now, as the customer asked, and never a second one. When the acceptance deadline
 * cancelled the order meanwhile, the payment's id is still recorded and its void follows.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict } from "../kernel/Errors.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { PaymentGateway, type GatewayPayment, type PaymentGatewayError } from "../../ports/PaymentGateway.js";
import { Outbox } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { OrderCancelled } from "./Events.js";
import type { OrderStatus, PaymentState } from "./model/RestaurantOrder.js";
import { checkOrderTransition, checkPaymentTransition } from "./OrderStatus.js";
import { withSpan } from "../kernel/Span.js";
import type { Order } from "./model/Order.js";
import { orderAuthorization } from "./OrderAuthorization.js";
import { paymentFallbackAt, paymentVoidJob, settleVoid, tryNow } from "./OrderPayments.js";

/** The payment of a pending order: by its id, or by sending the quote's authorization again when the id was lost. */
const paymentOf = (order: Order, paymentId: string | null): Effect.Effect<GatewayPayment, PaymentGatewayError | Conflict, OrdersRepository | PaymentGateway> =>
  Effect.gen(function* () {
    const gateway = yield* PaymentGateway;
    if (paymentId !== null) return yield* gateway.status({ merchantId: order.merchantId, paymentId });
    const request = yield* orderAuthorization(order);
    return yield* gateway.authorize(request).pipe(
      // A declined authorization is an answer: its payment waits for another method.
      Effect.catchTag("PaymentDeclined", (e) =>
        Effect.succeed<GatewayPayment>({
          paymentId: e.paymentId,
          merchantId: request.merchantId,
          status: "requires_payment_method",
          amount: request.amount,
          capturableMinor: 0,
          capturedMinor: 0,
          refundedMinor: 0,
        }),
      ),
    );
  });

/** Resolves a `payment_pending` order; answers its payment state afterwards. */
export const resolvePendingPayment = (orderId: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const workflow = yield* orders.findWorkflow(orderId);
    const order = yield* orders.findOrder(orderId);
    if (workflow === null || order === null || workflow.status !== "payment_pending") return workflow?.paymentState ?? null;
    const payment = yield* paymentOf(order, workflow.paymentId);
    const outcome: { readonly status: OrderStatus; readonly paymentState: PaymentState } | null =
      payment.status === "requires_capture"
        ? { status: "authorized", paymentState: "authorized" }
        : payment.status === "requires_payment_method" || payment.status === "canceled"
          ? { status: "cancelled", paymentState: "declined" }
          : null;
    if (outcome === null) return yield* Effect.fail(new Conflict({ code: "payment_processing", detail: `payment ${payment.paymentId} is ${payment.status}` }));
    const resolved = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const current = yield* orders.findWorkflow(orderId, { forUpdate: true });
        if (current === null) return { paymentState: null, voidFollows: false };
        if (current.status !== "payment_pending") {
          // Cancelled meanwhile (the acceptance deadline): the payment this job just learned may
          // hold money, so its id is kept and the void (already due, or scheduled again) reaches it.
          const at = yield* now;
          if (current.paymentId === null) {
            yield* orders.updateWorkflow({ ...current, paymentId: payment.paymentId, version: current.version + 1, updatedAt: at }, current.version);
          }
          const voidFollows = current.paymentState === "void_pending";
          if (voidFollows) yield* paymentVoidJob.schedule({ orderId }, { runAt: paymentFallbackAt(at), key: orderId });
          return { paymentState: current.paymentState, voidFollows };
        }
        yield* checkOrderTransition(current.status, outcome.status);
        yield* checkPaymentTransition(current.paymentState, outcome.paymentState);
        const reason = outcome.status === "cancelled" ? "payment_declined" : current.reason;
        const version = current.version + 1;
        yield* orders.updateWorkflow({ ...current, ...outcome, paymentId: payment.paymentId, reason, version, updatedAt: yield* now }, current.version);
        if (outcome.status === "cancelled") {
          // The customer was told only "pending" (202): the cancellation is announced like any
          // other (the customer's push, the restaurant's channel).
          const event = yield* OrderCancelled.make({
            tenant_id: current.restaurantId,
            aggregate_id: current.orderId,
            aggregate_version: version,
            actor_id: null,
            data: { order_id: current.orderId, restaurant_id: current.restaurantId, reason: "payment_declined" },
          });
          yield* (yield* Outbox).append([event]);
        }
        return { paymentState: outcome.paymentState, voidFollows: false };
      }),
    );
    if (resolved.voidFollows) yield* tryNow(settleVoid(orderId));
    return resolved.paymentState;
  }).pipe(withSpan("delivery.resolvePendingPayment"));

export const paymentResolveJob = defineJob({
  kind: "delivery.payment_resolve",
  payload: Schema.Struct({ orderId: Schema.String }),
  handle: (p) => Effect.asVoid(resolvePendingPayment(p.orderId)),
});
