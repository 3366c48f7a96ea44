/** Routes of returns: authorization by the order's owner or support, inspection stages, the refund. */
import { Effect } from "effect";
import { orderActorOf, userOf } from "../../../core/commerce/Callers.js";
import { getReturn } from "../../../core/commerce/ReturnQueries.js";
import { advanceReturn, createReturn, requestReturnRefund } from "../../../core/commerce/Returns.js";
import { ReturnWire } from "../../../core/commerce/model/Return.js";
import { ReturnId } from "../../../core/commerce/model/Ids.js";
import { defineRoute } from "../Route.js";
import { CreateReturnBody, ReturnRefundBody, ReturnStageBody } from "./ReturnSchemas.js";
import { ReturnParams } from "./StoreSchemas.js";

const tags = ["commerce"];

/** POST /v1/returns — a return authorization for eligible lines. */
export const createReturnRoute = defineRoute({
  method: "POST",
  path: "/v1/returns",
  operationId: "createReturn",
  summary: "Create a return authorization for shipped lines (order owner or support)",
  description:
    "422 return_not_eligible for a line not shipped, more than shipped minus already returned, or past the return window; " +
    "409 order_not_dispatched while the order has not wholly shipped (its payment is not captured yet); 409 order_state_conflict when the order is in no state to return.",
  tags,
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  // The reason is the shopper's free text, cleared by guest retention: never copied into the stored answer.
  unstored: {
    fields: ["reason"],
    reissue: ({ principal }, stored) => getReturn(principal, ReturnId.make(String(stored["id"]))).pipe(Effect.map((ret) => ({ reason: ret.reason }))),
  },
  body: CreateReturnBody,
  responses: { 201: ReturnWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, body }) =>
    Effect.flatMap(orderActorOf(principal, body.order_id, "support"), (actor) =>
      createReturn(actor, {
        orderId: body.order_id,
        lines: body.lines.map((l) => ({ orderLineId: l.order_line_id, quantity: l.quantity })),
        reason: body.reason,
      }),
    ).pipe(Effect.map((ret) => ({ status: 201, body: ret, etag: ret.version }))),
});

/** GET /v1/returns/:id — whoever may see its order. */
export const getReturnRoute = defineRoute({
  method: "GET",
  path: "/v1/returns/:id",
  operationId: "getReturn",
  summary: "Read a return authorization (order owner, guest with the cart token, or store support)",
  tags,
  auth: "required",
  answersEtag: "version",
  params: ReturnParams,
  responses: { 200: ReturnWire },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    getReturn(principal, params.id).pipe(Effect.map((ret) => ({ status: 200, body: ret, etag: ret.version }))),
});

/** POST /v1/returns/:id/stage — warehouse staff record receipt and inspection (restock or quarantine). */
export const returnStageRoute = defineRoute({
  method: "POST",
  path: "/v1/returns/:id/stage",
  operationId: "advanceReturn",
  summary: "Move a return to received, then restocked or quarantined, with a reason (warehouse operator; audited)",
  description:
    "Restocking puts the units back on hand where they shipped from, or at `location_id` (404 when it is not the store's; required, else 422, when a line shipped from several locations). " +
    "409 return_state_conflict for a stage out of order.",
  tags,
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: ReturnParams,
  body: ReturnStageBody,
  responses: { 200: ReturnWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) =>
      advanceReturn({ kind: "staff", userId, role: "warehouse_operator" }, params.id, {
        to: body.to,
        reason: body.reason,
        ...(body.location_id === undefined ? {} : { locationId: body.location_id }),
      }),
    ).pipe(Effect.map((ret) => ({ status: 200, body: ret, etag: ret.version }))),
});

/** POST /v1/returns/:id/refund — support requests the refund (audited); the return closes when it is confirmed. */
export const returnRefundRoute = defineRoute({
  method: "POST",
  path: "/v1/returns/:id/refund",
  operationId: "refundReturn",
  summary: "Request the refund of an inspected return, or again after the payment refused it, with a reason (support; audited)",
  description:
    "The return is `closed` once the payment confirms the refund; `refund_requested` while it is pending; `refund_failed` when the payment refused it. " +
    "From `refund_failed` a request sends the refund's next attempt (`refund_attempt`), once: requests made at once answer 409 return_state_conflict but one.",
  tags,
  auth: "required",
  answersEtag: "version",
  idempotency: "required",
  params: ReturnParams,
  body: ReturnRefundBody,
  responses: { 200: ReturnWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.flatMap(userOf(principal), (userId) => requestReturnRefund({ kind: "staff", userId, role: "support" }, params.id, { reason: body.reason })).pipe(
      Effect.map((ret) => ({ status: 200, body: ret, etag: ret.version })),
    ),
});

/** Return routes. */
export const returnRoutes = [createReturnRoute, getReturnRoute, returnStageRoute, returnRefundRoute];
