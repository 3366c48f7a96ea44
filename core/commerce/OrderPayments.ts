/**
 * The order's payment, always outside database transactions and always under keys derived
 * from the order (`order:<id>/authorize`, `/void`, `/capture`, `/refund`), so a retry, a replay
 * or a job acts on the same payment and never pays twice.
 *
 * Authorization outcomes (spec, States and transitions): authorized → the order is confirmed
 * (reservations committed, OrderConfirmed through the outbox); declined → failed (reservations
 * released, 402); unknown (a timeout) → payment_pending, never guessed: the resolution job
 * looks the payment up and applies the answer, retrying with backoff while it is still
 * processing. An authorization that arrives for an order that expired or was cancelled
 * meanwhile is voided; an answer that arrives for an order whose cancellation was requested
 * (even while it was still `pending`) finishes that cancellation: voided (nothing to void when
 * declined), stock released, order cancelled.
 */
import { Duration, Effect, Either } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob, type JobDefinition } from "../kernel/JobDefinition.js";
import { followUpOfCommitted } from "../kernel/FollowUp.js";
import type { CommerceServices } from "./Services.js";
import { Outbox } from "../../ports/Outbox.js";
import {
  PaymentGateway,
  type AuthorizeRequest,
  type GatewayPayment,
  type PaymentGatewayError,
} from "../../ports/PaymentGateway.js";
import { Transactions } from "../../ports/Transactions.js";
import { InventoryRepository } from "../../ports/commerce/InventoryRepository.js";
import { OrdersRepository } from "../../ports/commerce/OrdersRepository.js";
import { CheckoutRiskRepository } from "../../ports/commerce/CheckoutRiskRepository.js";
import { Schema } from "effect";
import type { Order } from "./model/Order.js";
import type { OrderPayment } from "./model/OrderPayment.js";
import { PaymentDeclinedForOrder } from "./Errors.js";
import { completeCancellation } from "./CompleteCancellation.js";
import { isFreeOrder, PaymentStillProcessing, releasePayment } from "./PaymentRelease.js";
import { OrderConfirmed } from "./Events.js";
import { moveOrder, releaseReservations, savePayment } from "./OrderRecords.js";
import { givePromotionUsesBack } from "./Promotions.js";
import { withSpan } from "../kernel/Span.js";
import { OrderId } from "./model/Ids.js";

/** The stable idempotency key of the order's authorization. */
export const orderPaymentKey = (orderId: OrderId): string => `order:${orderId}/authorize`;

/** How long after an unknown outcome the resolution job first looks. */
export const paymentResolutionDelay = Duration.seconds(30);

const loadOrderAndPayment = (orderId: OrderId) =>
  Effect.gen(function* () {
    const orders = yield* OrdersRepository;
    const order = yield* orders.findOrder(orderId);
    const payment = yield* orders.findPayment(orderId);
    if (order === null || payment === null) return yield* Effect.dieMessage(`order ${orderId} has no payment record`);
    return { order, payment };
  });

const confirm = (order: Order, payment: OrderPayment, gp: { readonly paymentId: string | null }, actorId: string) =>
  Effect.gen(function* () {
    const confirmed = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const moved = yield* moveOrder(order.id, "confirmed", actorId, {
          from: ["pending", "payment_pending"],
          ...(gp.paymentId === null ? {} : { change: { paymentIntentRef: gp.paymentId } }),
          detail: { payment_intent_ref: gp.paymentId },
        });
        const saved = yield* savePayment(payment, { status: "authorized", paymentId: gp.paymentId });
        if (moved === null) {
          // The order left checkout meanwhile: a job releases the authorization should the
          // attempt below not get through (its retry would otherwise find nothing to do).
          yield* strandedPaymentJob.schedule({ orderId: order.id }, { runAt: new Date((yield* now).getTime() + 30_000), key: `order:${order.id}/release` });
          return { moved: null, saved } as const;
        }
        yield* (yield* InventoryRepository).transitionReservationsOfOrder(order.id, ["active"], "committed", yield* now);
        const event = yield* OrderConfirmed.make({
          tenant_id: moved.storeId,
          aggregate_id: moved.id,
          aggregate_version: moved.version,
          actor_id: actorId,
          data: {
            order_id: moved.id,
            customer_id: moved.customerId,
            total_minor: moved.totalMinor,
            currency: moved.currency,
            payment_intent_ref: gp.paymentId,
          },
        });
        yield* (yield* Outbox).append([event]);
        return { moved, saved } as const;
      }),
    );
    if (confirmed.moved !== null) return confirmed.moved;
    return yield* releaseOfLeftCheckout(order.id);
  });

/**
 * After an answer was recorded for an order that had left checkout: releases what it must
 * (the job scheduled with the answer finishes it if this attempt does not); the order as it ends.
 */
const releaseOfLeftCheckout = (orderId: OrderId) =>
  Effect.gen(function* () {
    const current = yield* loadOrderAndPayment(orderId);
    yield* followUpOfCommitted(releaseStrandedPayment(current.order, current.payment), "releasing a stranded authorization", { order_id: orderId });
    return (yield* (yield* OrdersRepository).findOrder(orderId)) ?? current.order;
  });

/** Orders whose authorization must not stand: they will never be captured. */
const strandedStatuses: ReadonlyArray<Order["status"]> = ["expired", "failed", "cancelled"];

/**
 * Voids (or refunds) the payment of an order that left checkout while it was being authorized
 * (expired, failed or cancelled), and finishes the cancellation of an order whose cancellation
 * was requested meanwhile (its payment voided, its stock released, the order cancelled). An
 * order confirmed by another path (the resolution job and a late answer racing) keeps its payment.
 */
const releaseStrandedPayment = (order: Order, payment: OrderPayment) =>
  order.status === "cancellation_requested"
    ? Effect.asVoid(completeCancellation(order.id, "system:commerce-payments"))
    : strandedStatuses.includes(order.status)
      ? Effect.asVoid(releasePayment(order, payment, "system:commerce-payments"))
      : Effect.void;

/** The durable job that releases a stranded authorization (scheduled with it, keyed per order). */
export const strandedPaymentJob: JobDefinition<{ readonly orderId: OrderId }, CommerceServices> = defineJob({
  kind: "commerce.release-stranded-payment",
  payload: Schema.Struct({ orderId: OrderId }),
  handle: ({ orderId }) =>
    Effect.flatMap(loadOrderAndPayment(orderId), ({ order, payment }) => Effect.asVoid(releaseStrandedPayment(order, payment))),
});

const decline = (order: Order, payment: OrderPayment, paymentId: string | null, declineCode: string, actorId: string) =>
  Effect.gen(function* () {
    const moved = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const moved = yield* moveOrder(order.id, "failed", actorId, { from: ["pending", "payment_pending"], detail: { decline_code: declineCode } });
        if (moved !== null) {
          yield* releaseReservations(order.id, ["active"]);
          yield* givePromotionUsesBack(order.id);
          // A failed checkout counts under its risk signals (core/commerce/CheckoutRisk.ts).
          yield* (yield* CheckoutRiskRepository).markDeclined(order.id, yield* now);
        }
        yield* savePayment(payment, { status: "declined", paymentId: paymentId ?? payment.paymentId });
        // The order left checkout meanwhile (its cancellation requested): the job finishes it should the attempt below not.
        if (moved === null) yield* strandedPaymentJob.schedule({ orderId: order.id }, { runAt: new Date((yield* now).getTime() + 30_000), key: `order:${order.id}/release` });
        return moved;
      }),
    );
    if (moved === null) yield* releaseOfLeftCheckout(order.id);
    return yield* Effect.fail(new PaymentDeclinedForOrder({ orderId: order.id, declineCode }));
  });

const markUnknown = (order: Order, payment: OrderPayment, paymentId: string | null, actorId: string) =>
  Effect.gen(function* () {
    const at = yield* now;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* moveOrder(order.id, "payment_pending", actorId, { from: ["pending"] });
        yield* savePayment(payment, { status: "unknown", paymentId: paymentId ?? payment.paymentId });
        yield* paymentResolutionJob.schedule(
          { orderId: order.id },
          { runAt: new Date(at.getTime() + Duration.toMillis(paymentResolutionDelay)), key: `order:${order.id}` },
        );
        const current = yield* (yield* OrdersRepository).findOrder(order.id);
        return current ?? order;
      }),
    );
  });

/** Applies one answer of the gateway (a live authorization or a later lookup) to the order. */
const applyOutcome = (
  order: Order,
  payment: OrderPayment,
  outcome: Either.Either<GatewayPayment, PaymentGatewayError>,
  actorId: string,
) =>
  Effect.gen(function* () {
    if (Either.isRight(outcome)) {
      const gp = outcome.right;
      switch (gp.status) {
        case "requires_capture":
        case "succeeded":
          return yield* confirm(order, payment, gp, actorId);
        case "requires_payment_method":
        case "canceled":
          return yield* decline(order, payment, gp.paymentId, "payment_not_authorized", actorId);
        default:
          return yield* markUnknown(order, payment, gp.paymentId, actorId);
      }
    }
    const error = outcome.left;
    switch (error._tag) {
      case "PaymentDeclined":
        return yield* decline(order, payment, error.paymentId, error.declineCode, actorId);
      case "PaymentOutcomeAmbiguous":
        return yield* markUnknown(order, payment, error.paymentId, actorId);
      case "PaymentStateConflict":
        // The same key may still be running elsewhere: not an answer, so not a guess either.
        return yield* markUnknown(order, payment, null, actorId);
      default:
        // A definite refusal (invalid request, refused merchant): checkout fails closed.
        return yield* decline(order, payment, null, error.code, actorId);
    }
  });

/** The order's one authorization request (always the same for the same order: its key, reference and amount). */
const authorizeRequest = (order: Order, payment: OrderPayment): AuthorizeRequest => ({
  merchantId: payment.merchantId,
  idempotencyKey: payment.idempotencyKey,
  reference: `order:${order.id}`,
  amount: { amount_minor: payment.amountMinor, currency: order.currency },
  paymentMethod: payment.paymentMethod,
  captureMethod: "manual",
});

/**
 * Authorizes the order's total under its stable key and applies the answer (outside transactions).
 * Takes the order and its payment record as the checkout just committed them: the answer is
 * applied by conditional transitions, so a re-read would narrow no race, only cost two reads.
 */
export const authorizeOrderPayment = (placed: { readonly order: Order; readonly payment: OrderPayment }, actorId: string) =>
  Effect.gen(function* () {
    const { order, payment } = placed;
    if (isFreeOrder(payment)) return yield* confirm(order, payment, { paymentId: null }, actorId);
    const outcome = yield* (yield* PaymentGateway).authorize(authorizeRequest(order, payment)).pipe(Effect.either);
    return yield* applyOutcome(order, payment, outcome, actorId);
  }).pipe(withSpan("commerce.authorizeOrderPayment"));

/**
 * Resolves an order whose payment outcome is unknown: looks the payment up (by its id, or —
 * when even the id was lost — by re-sending the authorization under the same key, which the
 * gateway answers with the same payment) and applies the answer; a payment still processing
 * fails this attempt, so the runner retries with backoff and dead-letters after the bound.
 */
export const resolveOrderPayment = (orderId: OrderId) =>
  Effect.gen(function* () {
    const actorId = "system:commerce-payments";
    const { order, payment } = yield* loadOrderAndPayment(orderId);
    if (payment.status !== "unknown" && payment.status !== "authorizing") return order;
    if (isFreeOrder(payment)) return yield* confirm(order, payment, { paymentId: null }, actorId);
    const gateway = yield* PaymentGateway;
    const outcome =
      payment.paymentId === null
        ? yield* gateway.authorize(authorizeRequest(order, payment)).pipe(Effect.either)
        : yield* gateway.status({ merchantId: payment.merchantId, paymentId: payment.paymentId }).pipe(Effect.either);
    const stillUnknown =
      (Either.isRight(outcome) && !["requires_capture", "succeeded", "requires_payment_method", "canceled"].includes(outcome.right.status)) ||
      (Either.isLeft(outcome) && (outcome.left._tag === "PaymentOutcomeAmbiguous" || outcome.left._tag === "PaymentStateConflict"));
    if (stillUnknown) {
      if (Either.isRight(outcome) && payment.paymentId === null) yield* savePayment(payment, { paymentId: outcome.right.paymentId });
      return yield* Effect.fail(new PaymentStillProcessing({ orderId }));
    }
    return yield* applyOutcome(order, payment, outcome, actorId).pipe(
      Effect.catchTag("PaymentDeclinedForOrder", () => Effect.flatMap(OrdersRepository, (o) => o.findOrder(orderId))),
      Effect.map((o) => o ?? order),
    );
  }).pipe(withSpan("commerce.resolveOrderPayment"));

/** The durable job that resolves an unknown payment outcome (scheduled by checkout). */
export const paymentResolutionJob: JobDefinition<{ readonly orderId: OrderId }, CommerceServices> = defineJob({
  kind: "commerce.resolve-order-payment",
  payload: Schema.Struct({ orderId: OrderId }),
  handle: ({ orderId }) => Effect.asVoid(resolveOrderPayment(orderId)),
});
