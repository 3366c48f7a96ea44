/**
 * The reconciliation exceptions queue: list (keyset pages), show (with its immutable outcomes)
 * and resolve. A merchant key reads its own exceptions with `ledger:read` and resolves them
 * with `reconciliation:write`; another merchant's exception is 404. A resolution is an audited
 * reversal, adjustment or acknowledgement, never an edit: a resolved exception answers 409.
 */
import { Effect, Schema } from "effect";
import {
  ReconciliationExceptionDetailWire,
  ReconciliationExceptionWire,
  reconciliationExceptionDetail,
  reconciliationExceptionView,
} from "../../../core/payments/model/ReconciliationException.js";
import {
  getReconciliationException,
  listReconciliationExceptions,
  resolveReconciliationException,
  type Resolution,
} from "../../../core/payments/ReconciliationExceptions.js";
import { PageOf, mapPage } from "../../../core/kernel/Page.js";
import { pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { ResolveExceptionBody } from "./ReconciliationSchemas.js";
import { ReconciliationExceptionId } from "../../../core/payments/model/Ids.js";

const tags = ["payments"];

const ExceptionIdParams = Schema.Struct({ id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100), Schema.compose(ReconciliationExceptionId)) });

/** GET /v1/reconciliation-exceptions — the merchant's exceptions, newest first (ledger:read). */
const listReconciliationExceptionsRoute = defineRoute({
  method: "GET",
  path: "/v1/reconciliation-exceptions",
  operationId: "listReconciliationExceptions",
  summary: "List the merchant's reconciliation exceptions (keyset pages)",
  tags,
  auth: "required",
  pagination: true,
  query: Schema.Struct({ ...pageQueryFields, status: Schema.optional(Schema.Literal("open", "resolved")) }),
  responses: { 200: PageOf(ReconciliationExceptionWire) },
  problems: [400, 403],
  handler: ({ principal, page, query }) =>
    listReconciliationExceptions(principal, { ...page, status: query.status }).pipe(
      Effect.map((page) => ({ status: 200, body: mapPage(page, reconciliationExceptionView) })),
    ),
});

/** GET /v1/reconciliation-exceptions/:id — one exception with its outcomes (ledger:read). */
const getReconciliationExceptionRoute = defineRoute({
  method: "GET",
  path: "/v1/reconciliation-exceptions/:id",
  operationId: "getReconciliationException",
  summary: "Read a reconciliation exception and its audited outcomes",
  tags,
  auth: "required",
  params: ExceptionIdParams,
  responses: { 200: ReconciliationExceptionDetailWire },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    getReconciliationException(principal, params.id).pipe(
      Effect.map(({ exception, outcomes }) => ({
        status: 200,
        body: reconciliationExceptionDetail(exception, outcomes),
      })),
    ),
});

const resolutionOf = (body: typeof ResolveExceptionBody.Type): Resolution =>
  body.resolution === "reversal"
    ? { kind: "reversal", ledgerSource: body.ledger_source ?? "" }
    : body.resolution === "adjustment"
      ? { kind: "adjustment", amountMinor: body.amount_minor ?? 0, currency: body.currency }
      : body.resolution === "settle_intent" || body.resolution === "refund_stale_capture"
        ? { kind: body.resolution }
        : { kind: "acknowledgement" };

/** POST /v1/reconciliation-exceptions/:id/resolve — an audited reversal, adjustment or acknowledgement. */
const resolveReconciliationExceptionRoute = defineRoute({
  method: "POST",
  path: "/v1/reconciliation-exceptions/:id/resolve",
  operationId: "resolveReconciliationException",
  summary: "Resolve a reconciliation exception (reconciliation:write)",
  description:
    "`reversal` posts the linked reversal of one of the merchant's ledger transactions (`ledger_source`); `adjustment` posts a balanced adjustment of `amount_minor` (positive credits the merchant); `acknowledgement` records that the ledger stands; `settle_intent` (an exception about a payment intent still `processing`) asks the provider again after commit and applies its record, a hold below the intent as a partial authorization, or gives back a hold or capture that does not fit and returns the intent to `requires_payment_method`; `refund_stale_capture` (an exception about an earlier attempt of a payment intent) gives back after commit whatever the provider holds or took under that attempt: it voids a hold and refunds a capture, as the provider's record shows when the job runs. Never an edit: a resolved exception answers 409.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  params: ExceptionIdParams,
  body: ResolveExceptionBody,
  responses: { 200: ReconciliationExceptionWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    resolveReconciliationException(principal, params.id, resolutionOf(body), body.reason).pipe(
      Effect.map((exception) => ({ status: 200, body: reconciliationExceptionView(exception) })),
    ),
});

/** The reconciliation routes of the payment module. */
export const reconciliationRoutes = [listReconciliationExceptionsRoute, getReconciliationExceptionRoute, resolveReconciliationExceptionRoute];
