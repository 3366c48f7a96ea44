/**
 * Void and capture of an order's authorization (spec: Background work, payment void or capture
 * reconciliation). The workflow first records the intent (`void_pending`, `capture_pending`)
 * in the command's transaction together with a keyed job; the gateway is called after commit,
 * outside any transaction, under a key stable per order, and the job retries with backoff
 * while the provider is down (dead letters after the bound), so the money always follows.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { Conflict } from "../kernel/Errors.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { OrdersRepository } from "../../ports/delivery/OrdersRepository.js";
import { PaymentGateway, type PaymentGatewayError } from "../../ports/PaymentGateway.js";
import { Transactions } from "../../ports/Transactions.js";
import type { PaymentState } from "./model/RestaurantOrder.js";
import { checkPaymentTransition } from "./OrderStatus.js";
import { orderAuthorization } from "./OrderAuthorization.js";
import { withSpan } from "../kernel/Span.js";

/**
 * How long a void or capture job waits before its first run. The step is tried at once after
 * commit (`tryNow`); the job is its fallback while the provider is down, so it starts a little
 * later and the two never call the provider together under one key.
 */
export const paymentFallbackDelayMs = 5_000;

/** When the fallback job of a payment step decided at `at` first runs. */
export const paymentFallbackAt = (at: Date): Date => new Date(at.getTime() + paymentFallbackDelayMs);

export const voidKey = (orderId: string): string => `delivery:order:${orderId}:void`;
export const captureKey = (orderId: string): string => `delivery:order:${orderId}:capture`;

/** Moves the payment state from `from` to `to` (no-op when it is no longer `from`). */
const movePayment = (orderId: string, from: PaymentState, to: PaymentState) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const workflow = yield* orders.findWorkflow(orderId, { forUpdate: true });
        if (workflow === null || workflow.paymentState !== from) return;
        yield* checkPaymentTransition(from, to);
        yield* orders.updateWorkflow({ ...workflow, paymentState: to, version: workflow.version + 1, updatedAt: yield* now }, workflow.version);
      }),
    );
  });

/** What the gateway call of one pending payment step needs. */
const pendingPayment = (orderId: string, state: PaymentState) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const workflow = yield* orders.findWorkflow(orderId);
    const order = yield* orders.findOrder(orderId);
    if (workflow === null || order === null || workflow.paymentState !== state) return null;
    if (workflow.paymentId === null) {
      return yield* Effect.fail(new Conflict({ code: "payment_unknown", detail: `order ${orderId}: the payment id is not known yet` }));
    }
    return { merchantId: order.merchantId, paymentId: workflow.paymentId };
  });

/** Calls the gateway for a `from` payment step, then records `to`; fails (to be retried) while the provider is down. */
const settlePending = (
  orderId: string,
  from: "void_pending" | "capture_pending",
  to: "voided" | "captured",
  call: (gateway: PaymentGateway, payment: { readonly merchantId: string; readonly paymentId: string }) => Effect.Effect<unknown, PaymentGatewayError>,
) =>
  Effect.gen(function* () {
    const pending = yield* pendingPayment(orderId, from);
    if (pending === null) return;
    yield* call(yield* PaymentGateway, pending);
    yield* movePayment(orderId, from, to);
  });

/**
 * Voids a `void_pending` order's authorization, then records `voided`. When its payment id was
 * never learned (the payment service was unreachable at placement), the quote's authorization is
 * released by its request: that voids whatever the key holds, or fences a key never used so a
 * late authorization cannot hold money.
 */
export const settleVoid = (orderId: string) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const workflow = yield* orders.findWorkflow(orderId);
    const order = yield* orders.findOrder(orderId);
    if (workflow === null || order === null || workflow.paymentState !== "void_pending") return;
    const gateway = yield* PaymentGateway;
    if (workflow.paymentId !== null) {
      yield* gateway.cancel({ merchantId: order.merchantId, paymentId: workflow.paymentId, idempotencyKey: voidKey(orderId) });
    } else {
      const released = yield* gateway.releaseAuthorization(yield* orderAuthorization(order));
      if (released.status !== "canceled") {
        return yield* Effect.fail(new Conflict({ code: "payment_not_released", detail: `order ${orderId}: payment ${released.paymentId} is ${released.status}` }));
      }
    }
    yield* movePayment(orderId, "void_pending", "voided");
  }).pipe(withSpan("delivery.settleVoid"));

/** Captures a `capture_pending` order's authorization, then records `captured`. */
export const settleCapture = (orderId: string) =>
  settlePending(orderId, "capture_pending", "captured", (gateway, p) => gateway.capture({ ...p, idempotencyKey: captureKey(orderId) })).pipe(
    withSpan("delivery.settleCapture"),
  );

const OrderPayload = Schema.Struct({ orderId: Schema.String });

/** Retries the void of a cancelled or rejected order until the provider answers. */
export const paymentVoidJob = defineJob({ kind: "delivery.payment_void", payload: OrderPayload, handle: (p) => settleVoid(p.orderId) });

/** Retries the capture of a delivered order until the provider answers. */
export const paymentCaptureJob = defineJob({ kind: "delivery.payment_capture", payload: OrderPayload, handle: (p) => settleCapture(p.orderId) });

/** Tries a payment step at once after commit; a failure is left to its job's retries. */
export const tryNow = <R>(step: Effect.Effect<void, unknown, R>): Effect.Effect<void, never, R> =>
  step.pipe(Effect.catchAllCause(() => Effect.void));
