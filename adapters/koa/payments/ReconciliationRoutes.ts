/**
 * The reconciliation exceptions queue: list (keyset pages), show (with its immutable outcomes)
 * and resolve. A merchant key reads its own exceptions with `ledger:read` and resolves them
 * with `reconciliation:write`; another merchant's exception is 404. A resolution is an audited
 * reversal, adjustment or acknowledgement, never an edit: a resolved exception answers 409.
 */
import { Effect, Schema } from "effect";
import type { ReconciliationException, ReconciliationOutcome } from "../../../core/payments/ReconciliationException.js";
import {
  getReconciliationException,
  listReconciliationExceptions,
  resolveReconciliationException,
  type Resolution,
} from "../../../core/payments/ReconciliationExceptions.js";
import { PageOf, pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";

const tags = ["payments"];
const Json = Schema.NullOr(Schema.Record({ key: Schema.String, value: Schema.Unknown }));

/** A reconciliation exception on the wire. */
export const ReconciliationExceptionView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("reconciliation_exception"),
  merchant_id: Schema.NullOr(Schema.String),
  provider_object: Schema.String,
  settlement_window: Schema.String,
  kind: Schema.Literal("missing", "amount", "currency", "status", "unresolved"),
  subject_type: Schema.Literal("payment_intent", "refund", "unknown"),
  subject_id: Schema.NullOr(Schema.String),
  expected: Json,
  observed: Json,
  currency: Schema.NullOr(Schema.String),
  status: Schema.Literal("open", "resolved"),
  resolution: Json,
  opened_at: Schema.String,
  resolved_at: Schema.NullOr(Schema.String),
});

/** One immutable outcome of an exception. */
export const ReconciliationOutcomeView = Schema.Struct({
  id: Schema.String,
  action: Schema.Literal("opened", "resolved"),
  actor: Schema.String,
  reason: Schema.String,
  ledger_source: Schema.NullOr(Schema.String),
  created_at: Schema.String,
});

/** An exception with its outcomes. */
export const ReconciliationExceptionDetail = Schema.Struct({
  ...ReconciliationExceptionView.fields,
  outcomes: Schema.Array(ReconciliationOutcomeView),
});

/** Body of POST /v1/reconciliation-exceptions/:id/resolve. */
export const ResolveExceptionBody = Schema.Struct({
  resolution: Schema.Literal("reversal", "adjustment", "acknowledgement"),
  reason: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)),
  ledger_source: Schema.optional(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(300))),
  amount_minor: Schema.optional(Schema.Int),
  currency: Schema.optional(Schema.String),
});

const ExceptionIdParams = Schema.Struct({ id: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100)) });

/** An exception record on the wire. */
export const reconciliationExceptionView = (e: ReconciliationException): typeof ReconciliationExceptionView.Type => ({
  id: e.id,
  object: "reconciliation_exception",
  merchant_id: e.merchantId,
  provider_object: e.providerObject,
  settlement_window: e.settlementWindow,
  kind: e.kind,
  subject_type: e.subjectType,
  subject_id: e.subjectId,
  expected: e.expected,
  observed: e.observed,
  currency: e.currency,
  status: e.status,
  resolution: e.resolution,
  opened_at: e.openedAt.toISOString(),
  resolved_at: e.resolvedAt === null ? null : e.resolvedAt.toISOString(),
});

const outcomeView = (o: ReconciliationOutcome): typeof ReconciliationOutcomeView.Type => ({
  id: o.id,
  action: o.action,
  actor: o.actor,
  reason: o.reason,
  ledger_source: o.ledgerSource,
  created_at: o.createdAt.toISOString(),
});

/** GET /v1/reconciliation-exceptions — the merchant's exceptions, newest first (ledger:read). */
export const listReconciliationExceptionsRoute = defineRoute({
  method: "GET",
  path: "/v1/reconciliation-exceptions",
  operationId: "listReconciliationExceptions",
  summary: "List the merchant's reconciliation exceptions (keyset pages)",
  tags,
  auth: "required",
  idempotency: "none",
  pagination: true,
  query: Schema.Struct({ ...pageQueryFields, status: Schema.optional(Schema.Literal("open", "resolved")) }),
  responses: { 200: PageOf(ReconciliationExceptionView) },
  problems: [400, 403],
  handler: ({ principal, page, query }) =>
    listReconciliationExceptions(principal, { ...page, status: query.status }).pipe(
      Effect.map((result) => ({ status: 200, body: { data: result.data.map(reconciliationExceptionView), next_cursor: result.nextCursor } })),
    ),
});

/** GET /v1/reconciliation-exceptions/:id — one exception with its outcomes (ledger:read). */
export const getReconciliationExceptionRoute = defineRoute({
  method: "GET",
  path: "/v1/reconciliation-exceptions/:id",
  operationId: "getReconciliationException",
  summary: "Read a reconciliation exception and its audited outcomes",
  tags,
  auth: "required",
  idempotency: "none",
  params: ExceptionIdParams,
  responses: { 200: ReconciliationExceptionDetail },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    getReconciliationException(principal, params.id).pipe(
      Effect.map(({ exception, outcomes }) => ({
        status: 200,
        body: { ...reconciliationExceptionView(exception), outcomes: outcomes.map(outcomeView) },
      })),
    ),
});

const resolutionOf = (body: typeof ResolveExceptionBody.Type): Resolution =>
  body.resolution === "reversal"
    ? { kind: "reversal", ledgerSource: body.ledger_source ?? "" }
    : body.resolution === "adjustment"
      ? { kind: "adjustment", amountMinor: body.amount_minor ?? 0, currency: body.currency }
      : { kind: "acknowledgement" };

/** POST /v1/reconciliation-exceptions/:id/resolve — an audited reversal, adjustment or acknowledgement. */
export const resolveReconciliationExceptionRoute = defineRoute({
  method: "POST",
  path: "/v1/reconciliation-exceptions/:id/resolve",
  operationId: "resolveReconciliationException",
  summary: "Resolve a reconciliation exception (reconciliation:write)",
  description:
    "`reversal` posts the linked reversal of one of the merchant's ledger transactions (`ledger_source`); `adjustment` posts a balanced adjustment of `amount_minor` (positive credits the merchant); `acknowledgement` records that the ledger stands. Never an edit: a resolved exception answers 409.",
  tags,
  auth: "required",
  idempotency: "required",
  params: ExceptionIdParams,
  body: ResolveExceptionBody,
  responses: { 200: ReconciliationExceptionView },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    resolveReconciliationException(principal, params.id, resolutionOf(body), body.reason).pipe(
      Effect.map((exception) => ({ status: 200, body: reconciliationExceptionView(exception) })),
    ),
});

/** The reconciliation routes of the payment module. */
export const reconciliationRoutes = [listReconciliationExceptionsRoute, getReconciliationExceptionRoute, resolveReconciliationExceptionRoute];
