/**
 * The risk analyst routes (core/payments/RiskHolds.ts): holds placed and released with
 * `risk:write`, holds listed and an intent's risk signals read with `risk:read`.
 */
import { Effect } from "effect";
import { PageOf, mapPage } from "../../../core/kernel/Page.js";
import { intentRisk, listHolds, placeHold, releaseHold } from "../../../core/payments/RiskHolds.js";
import { IntentRiskWire, intentRiskView } from "../../../core/payments/model/IntentRisk.js";
import { RiskHoldWire, riskHoldView } from "../../../core/payments/model/RiskHold.js";
import { defineRoute } from "../Route.js";
import { IntentIdParams } from "./PaymentSchemas.js";
import { HoldBody, ListHoldsQuery } from "./RiskSchemas.js";

const tags = ["payments"];

/** POST /v1/payment-intents/:id/hold — hold an intent: no confirm or capture until released (risk:write). */
const placeHoldRoute = defineRoute({
  method: "POST",
  path: "/v1/payment-intents/:id/hold",
  operationId: "holdPaymentIntent",
  summary: "Hold a payment intent: confirm and capture answer 409 intent_on_hold until the hold is released (risk:write)",
  tags,
  auth: "required",
  idempotency: "required",
  oneTransaction: true,
  params: IntentIdParams,
  body: HoldBody,
  responses: { 201: RiskHoldWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) => placeHold(principal, params.id, body.reason).pipe(Effect.map((hold) => ({ status: 201, body: riskHoldView(hold) }))),
});

/** POST /v1/payment-intents/:id/hold/release — release the intent's active hold (risk:write). */
const releaseHoldRoute = defineRoute({
  method: "POST",
  path: "/v1/payment-intents/:id/hold/release",
  operationId: "releasePaymentIntentHold",
  summary: "Release a payment intent's active hold (risk:write)",
  tags,
  auth: "required",
  idempotency: "required",
  oneTransaction: true,
  params: IntentIdParams,
  body: HoldBody,
  responses: { 200: RiskHoldWire },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) => releaseHold(principal, params.id, body.reason).pipe(Effect.map((hold) => ({ status: 200, body: riskHoldView(hold) }))),
});

/** GET /v1/payment-intents/:id/risk — the intent's risk signals and active hold (risk:read). */
const intentRiskRoute = defineRoute({
  method: "GET",
  path: "/v1/payment-intents/:id/risk",
  operationId: "getPaymentIntentRisk",
  summary: "A payment intent's risk signals and active hold (risk:read)",
  tags,
  auth: "required",
  params: IntentIdParams,
  responses: { 200: IntentRiskWire },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    intentRisk(principal, params.id).pipe(Effect.map(({ intent, signals, activeHold }) => ({ status: 200, body: intentRiskView(intent, signals, activeHold) }))),
});

/** GET /v1/risk/holds — the merchant's holds, newest first, in keyset pages (risk:read). */
const listHoldsRoute = defineRoute({
  method: "GET",
  path: "/v1/risk/holds",
  operationId: "listRiskHolds",
  summary: "The merchant's risk holds, newest first (risk:read)",
  tags,
  auth: "required",
  pagination: true,
  query: ListHoldsQuery,
  responses: { 200: PageOf(RiskHoldWire) },
  problems: [400, 403],
  handler: ({ principal, query, page }) =>
    listHolds(principal, { activeOnly: query.status === "active", cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((holds) => ({ status: 200, body: mapPage(holds, riskHoldView) })),
    ),
});

/** The risk analyst routes, in documentation order. */
export const riskRoutes = [placeHoldRoute, releaseHoldRoute, intentRiskRoute, listHoldsRoute];
