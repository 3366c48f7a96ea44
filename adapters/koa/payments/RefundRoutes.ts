/** Routes of refunds and the merchant's ledger view. */
import { Effect, Schema } from "effect";
import { createRefund } from "../../../core/payments/CreateRefund.js";
import { listBalanceTransactions } from "../../../core/payments/ListBalanceTransactions.js";
import { BalanceTransactionWire, balanceTransactionView } from "../../../core/payments/model/BalanceEntry.js";
import { RefundWire, refundView } from "../../../core/payments/model/Refund.js";
import { PageOf, mapPage } from "../../../core/kernel/Page.js";
import { pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { CreateRefundBody } from "./PaymentSchemas.js";

/** POST /v1/refunds — 201 completed or failed, 202 accepted and pending at the provider. */
const createRefundRoute = defineRoute({
  method: "POST",
  path: "/v1/refunds",
  operationId: "createRefund",
  summary: "Refund a captured payment intent, fully or partly",
  tags: ["payments"],
  auth: "required",
  idempotency: "required",
  body: CreateRefundBody,
  responses: { 201: RefundWire, 202: RefundWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, body, idempotencyKey }) =>
    createRefund(principal, {
      intentId: body.payment_intent_id,
      amountMinor: body.amount_minor,
      ...(idempotencyKey === undefined ? {} : { requestKey: idempotencyKey }),
      ...(body.currency === undefined ? {} : { currency: body.currency }),
    }).pipe(Effect.map((refund) => ({ status: refund.status === "pending" ? 202 : 201, body: refundView(refund) }))),
});

/** GET /v1/balance-transactions — the merchant's ledger entries, newest first (ledger:read). */
const listBalanceTransactionsRoute = defineRoute({
  method: "GET",
  path: "/v1/balance-transactions",
  operationId: "listBalanceTransactions",
  summary: "List the merchant's ledger entries (keyset pages)",
  tags: ["payments"],
  auth: "required",
  pagination: true,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(BalanceTransactionWire) },
  problems: [400, 403],
  handler: ({ principal, page }) =>
    listBalanceTransactions(principal, page).pipe(
      Effect.map((page) => ({ status: 200, body: mapPage(page, balanceTransactionView) })),
    ),
});

/** The refund and ledger routes, in documentation order. */
export const refundRoutes = [createRefundRoute, listBalanceTransactionsRoute];
