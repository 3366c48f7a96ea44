/**
 * The operators' page of settlement dead letters (spec: "settlement uses an event-id inbox;
 * dead-letter pages operations"): dispatchers list the settlement jobs that exhausted their
 * retries and replay one with a reason (step-up, Idempotency-Key required like every operator
 * action).
 */
import { Effect, Schema } from "effect";
import { listSettlementDeadLetters } from "../../../core/delivery/ListSettlementDeadLetters.js";
import { listPaymentDeadLetters } from "../../../core/delivery/PaymentDeadLetters.js";
import { replayPaymentDeadLetter } from "../../../core/delivery/ReplayPaymentDeadLetter.js";
import { PaymentDeadLetterWire } from "../../../core/delivery/model/PaymentDeadLetter.js";
import { replaySettlementDeadLetter } from "../../../core/delivery/ReplaySettlementDeadLetter.js";
import { SettlementDeadLetterWire } from "../../../core/delivery/model/SettlementDeadLetter.js";
import { PageOf, pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { IdParams, OrderParams } from "./RestaurantSchemas.js";
import { listOrderRefunds } from "../../../core/delivery/ListOrderRefunds.js";
import { refundOrder } from "../../../core/delivery/RefundOrder.js";
import { cancelOrderAsDispatcher } from "../../../core/delivery/CancelAsDispatcher.js";
import { RestaurantOrderWire } from "../../../core/delivery/model/RestaurantOrder.js";
import { RefundWire } from "../../../core/delivery/model/Refund.js";

const tags = ["delivery"];

/** Body of POST /operator/settlement-dead-letters/:id/replay. */
export const ReplayBody = Schema.Struct({ reason: Schema.String });

/** GET /operator/settlement-dead-letters — the dead settlement jobs, oldest first, keyset pages. */
const listRoute = defineRoute({
  method: "GET",
  path: "/operator/settlement-dead-letters",
  operationId: "listSettlementDeadLetters",
  summary: "List the settlement jobs that exhausted their retries (dispatchers)",
  description:
    "Dispatchers only (DELIVERY_DISPATCHERS), whatever their region: settlement belongs to participants, not streets. Oldest first (by job id), in keyset pages. Ids, attempts and the last error only. Anyone else: 403.",
  tags,
  auth: "required",
  pagination: true,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(SettlementDeadLetterWire) },
  problems: [400, 403],
  handler: ({ principal, page }) => listSettlementDeadLetters(principal, page).pipe(Effect.map((dead) => ({ status: 200, body: dead }))),
});

/** POST /operator/settlement-dead-letters/:id/replay — run a dead settlement job again now. */
const replayRoute = defineRoute({
  method: "POST",
  path: "/operator/settlement-dead-letters/:id/replay",
  operationId: "replaySettlementDeadLetter",
  summary: "Replay a dead settlement job, with a reason (dispatchers, step-up)",
  description:
    "A dispatcher (else 404) whose token's auth_time is within DELIVERY_STEP_UP_SECONDS (else 403 step_up_required); Idempotency-Key required. Puts the job back in line with its attempts reset; payables are recorded under unique component keys, so a replay never pays twice. 404 for an unknown id or another kind of job, 409 not_a_dead_settlement once it is no longer dead.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  params: IdParams,
  body: ReplayBody,
  responses: { 200: SettlementDeadLetterWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    replaySettlementDeadLetter(principal, params.id, { reason: body.reason }).pipe(Effect.map((letter) => ({ status: 200, body: letter }))),
});

/** GET /operator/payment-dead-letters — the payment steps that exhausted their retries, oldest first, keyset pages. */
const paymentListRoute = defineRoute({
  method: "GET",
  path: "/operator/payment-dead-letters",
  operationId: "listPaymentDeadLetters",
  summary: "List the payment steps that exhausted their retries (dispatchers)",
  description:
    "Dispatchers only (DELIVERY_DISPATCHERS), whatever their region. A dead capture leaves its order capture_pending while its participants are owed; a dead void, or the release of a quote's authorization left without an order, leaves the customer's authorization held; a dead resolution leaves an order payment_pending. Oldest first (by job id), in keyset pages: the step (capture, void, resolve, release), the order id or quote id, attempts and the last error. Anyone else: 403.",
  tags,
  auth: "required",
  pagination: true,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(PaymentDeadLetterWire) },
  problems: [400, 403],
  handler: ({ principal, page }) => listPaymentDeadLetters(principal, page).pipe(Effect.map((dead) => ({ status: 200, body: dead }))),
});

/** POST /operator/payment-dead-letters/:id/replay — run a dead payment step again now. */
const paymentReplayRoute = defineRoute({
  method: "POST",
  path: "/operator/payment-dead-letters/:id/replay",
  operationId: "replayPaymentDeadLetter",
  summary: "Replay a dead payment step, with a reason (dispatchers, step-up)",
  description:
    "A dispatcher (else 404) whose token's auth_time is within DELIVERY_STEP_UP_SECONDS (else 403 step_up_required); Idempotency-Key required. Puts the job back in line with its attempts reset; each step calls the provider under its one idempotency key, so a replay never captures, voids or authorizes twice. Actor and reason are audited. 404 for an unknown id or another kind of job, 409 not_a_dead_payment_step once it is no longer dead.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  params: IdParams,
  body: ReplayBody,
  responses: { 200: PaymentDeadLetterWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    replayPaymentDeadLetter(principal, params.id, { reason: body.reason }).pipe(Effect.map((letter) => ({ status: 200, body: letter }))),
});

/** Body of POST /operator/orders/:id/refund: without `amount_minor`, all that is left of the captured amount. */
export const RefundBody = Schema.Struct({ amount_minor: Schema.optional(Schema.Int), reason: Schema.String });

/** POST /operator/orders/:id/refund — support refunds a delivered order, with a reason (dispatchers of its region, step-up). */
const refundRoute = defineRoute({
  method: "POST",
  path: "/operator/orders/:id/refund",
  operationId: "refundDeliveryOrder",
  summary: "Refund a delivered order, with a reason (dispatchers of its region, step-up)",
  description:
    "A dispatcher of the region the order's delivery is picked up in (else 404, like an unknown order) whose token's auth_time is within DELIVERY_STEP_UP_SECONDS (else 403 step_up_required); Idempotency-Key required; reason 1 to 500 characters (else 422). Only a completed order whose payment is captured (else 409 order_not_refundable). amount_minor (positive) defaults to what is left of the captured amount; more than that is 409 refund_exceeds_captured with refundable_minor. Answers 202 with the refund: pending until the payment answers (a keyed job retries; dead letters go to the payment desk), then refunded or failed. A refund of the whole captured amount reverses the order's settlement, the restaurant's and the courier's payables included; a partial refund is borne by the platform. Actor and reason are kept on the refund.",
  tags,
  auth: "required",
  idempotency: "required",
  params: OrderParams,
  body: RefundBody,
  responses: { 202: RefundWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    refundOrder(principal, params.id, { amountMinor: body.amount_minor, reason: body.reason }).pipe(Effect.map((refund) => ({ status: 202, body: refund }))),
});

/** GET /operator/orders/:id/refunds — an order's refunds, oldest first, keyset pages. */
const refundsListRoute = defineRoute({
  method: "GET",
  path: "/operator/orders/:id/refunds",
  operationId: "listDeliveryOrderRefunds",
  summary: "List an order's refunds (dispatchers of its region)",
  description:
    "A dispatcher of the region the order's delivery is picked up in (else 404, like an unknown order). Oldest first (by id), in keyset pages: amount, status (pending, refunded, failed), actor, reason and failure.",
  tags,
  auth: "required",
  pagination: true,
  params: OrderParams,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(RefundWire) },
  problems: [400, 404],
  handler: ({ principal, params, page }) => listOrderRefunds(principal, params.id, page).pipe(Effect.map((refunds) => ({ status: 200, body: refunds }))),
});

/** POST /operator/orders/:id/cancel — support cancels an accepted order whose meal is not picked up, with a reason (step-up). */
const cancelRoute = defineRoute({
  method: "POST",
  path: "/operator/orders/:id/cancel",
  operationId: "cancelDeliveryOrderAsDispatcher",
  summary: "Cancel an accepted order and its delivery, with a reason (dispatchers of its region, step-up)",
  description:
    "A dispatcher of the region the order's delivery is picked up in (else 404, like an unknown order) whose token's auth_time is within DELIVERY_STEP_UP_SECONDS (else 403 step_up_required); Idempotency-Key required; reason 1 to 500 characters (else 422). Only an accepted order whose delivery is pending or assigned (else 409 order_not_cancellable). The delivery is cancelled with actor and reason in its status history, its offers are lost, the order is cancelled and its payment authorization voided (payment_state void_pending until the provider answers; a keyed job retries). An order already cancelled answers as it is.",
  tags,
  auth: "required",
  answersEtag: "version",
  idempotency: "required",
  params: OrderParams,
  body: ReplayBody,
  responses: { 200: RestaurantOrderWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    cancelOrderAsDispatcher(principal, params.id, { reason: body.reason }).pipe(Effect.map((workflow) => ({ status: 200, body: workflow, etag: workflow.version }))),
});

/** Every operator route of the delivery module. */
export const operatorRoutes = [listRoute, replayRoute, paymentListRoute, paymentReplayRoute, refundRoute, refundsListRoute, cancelRoute];
