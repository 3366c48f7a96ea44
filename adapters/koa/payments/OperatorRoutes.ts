/**
 * Platform operator routes: the provider's health as our records show it, the cross-merchant list
 * of dead-lettered merchant webhook deliveries, and their replay under dual control; the platform's
 * reconciliation exceptions (of no merchant) and their acknowledgement. The operators are user ids from configuration (PLATFORM_OPERATORS), so the routes
 * are built from that list; anyone else is 403.
 */
import { Effect, Schema } from "effect";
import type { Route } from "../Route.js";
import { approveDeliveryReplay, requestDeliveryReplay, type OperatorPolicy } from "../../../core/payments/OperatorReplay.js";
import { listDeadDeliveries } from "../../../core/payments/DeadDeliveries.js";
import { ReplayRequestWire, replayRequestView } from "../../../core/payments/model/ReplayRequest.js";
import { DeadDeliveryWire } from "../../../core/payments/model/WebhookDelivery.js";
import { PageOf, mapPage } from "../../../core/kernel/Page.js";
import { pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { PlatformResolutionBody, ReplayReasonBody } from "./OperatorSchemas.js";
import { ReconciliationExceptionId, ReplayRequestId, WebhookDeliveryId } from "../../../core/payments/model/Ids.js";
import { ReconciliationExceptionWire, reconciliationExceptionView } from "../../../core/payments/model/ReconciliationException.js";
import {
  acknowledgePlatformReconciliationException,
  listPlatformReconciliationExceptions,
} from "../../../core/payments/PlatformReconciliationExceptions.js";
import { idOf } from "../RouteIds.js";
import { ProviderHealthWire, getProviderHealth } from "../../../core/payments/ProviderHealth.js";


/** The operator routes for `policy` (the configured platform operators). */
export const makeOperatorRoutes = (policy: OperatorPolicy): ReadonlyArray<Route> => [
  defineRoute({
    method: "GET",
    path: "/v1/operator/provider-health",
    operationId: "getProviderHealth",
    summary: "The payment provider's health as our records show it (platform operators)",
    description:
      "Outcomes still open with the provider across merchants: intents whose current attempt's outcome is unknown, attempts whose answer was never recorded (pending over 30 s), refunds awaiting the provider, open `unresolved` exceptions, and when the last verified provider webhook arrived. Never cached.",
    tags: ["operator"],
    auth: "required",
    responses: { 200: ProviderHealthWire },
    problems: [403],
    handler: ({ principal }) =>
      getProviderHealth(principal, policy).pipe(Effect.map((view) => ({ status: 200, body: view, headers: { "Cache-Control": "no-store" } }))),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/operator/webhook-deliveries",
    operationId: "listDeadWebhookDeliveries",
    summary: "List dead-lettered merchant webhook deliveries across merchants (platform operators; keyset pages)",
    tags: ["operator"],
    auth: "required",
    pagination: true,
    // Only the dead-letter queue is an operator's concern; other statuses belong to each merchant.
    query: Schema.Struct({ ...pageQueryFields, status: Schema.Literal("dead") }),
    responses: { 200: PageOf(DeadDeliveryWire) },
    problems: [400, 403],
    handler: ({ principal, page }) =>
      listDeadDeliveries(principal, policy, page).pipe(
        Effect.map((page) => ({ status: 200, body: page })),
      ),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/operator/webhook-deliveries/:id/replay-requests",
    operationId: "requestWebhookDeliveryReplay",
    summary: "Request the replay of a dead-lettered webhook delivery (first operator)",
    tags: ["operator"],
    auth: "required",
    // One transaction, nothing called outside: the key and the answer commit with the work.
    oneTransaction: true,
    idempotency: "required",
    params: Schema.Struct({ id: idOf(WebhookDeliveryId) }),
    body: ReplayReasonBody,
    responses: { 201: ReplayRequestWire },
    problems: [403, 404, 409, 422],
    handler: ({ principal, params, body }) =>
      requestDeliveryReplay(principal, policy, params.id, body.reason).pipe(Effect.map((r) => ({ status: 201, body: replayRequestView(r) }))),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/operator/webhook-deliveries/:id/replay-requests/:request_id/approve",
    operationId: "approveWebhookDeliveryReplay",
    summary: "Approve a replay request (a second, different operator); the delivery is retried at once",
    tags: ["operator"],
    auth: "required",
    // One transaction, nothing called outside: the key and the answer commit with the work.
    oneTransaction: true,
    idempotency: "required",
    params: Schema.Struct({ id: idOf(WebhookDeliveryId), request_id: idOf(ReplayRequestId) }),
    body: ReplayReasonBody,
    responses: { 200: ReplayRequestWire },
    problems: [403, 404, 409, 422],
    handler: ({ principal, params, body }) =>
      approveDeliveryReplay(principal, policy, params.id, params.request_id, body.reason).pipe(
        Effect.map((r) => ({ status: 200, body: replayRequestView(r) })),
      ),
  }),
  defineRoute({
    method: "GET",
    path: "/v1/operator/reconciliation-exceptions",
    operationId: "listPlatformReconciliationExceptions",
    summary: "List the platform's reconciliation exceptions, those of no merchant (platform operators; keyset pages)",
    description: "Exceptions opened for a settlement row whose reference we never issued. A merchant's exceptions are not listed here.",
    tags: ["operator"],
    auth: "required",
    pagination: true,
    query: Schema.Struct({ ...pageQueryFields, status: Schema.optional(Schema.Literal("open", "resolved")) }),
    responses: { 200: PageOf(ReconciliationExceptionWire) },
    problems: [400, 403],
    handler: ({ principal, page, query }) =>
      listPlatformReconciliationExceptions(principal, policy, { ...page, status: query.status }).pipe(
        Effect.map((page) => ({ status: 200, body: mapPage(page, reconciliationExceptionView) })),
      ),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/operator/reconciliation-exceptions/:id/resolve",
    operationId: "resolvePlatformReconciliationException",
    summary: "Resolve a platform reconciliation exception by an acknowledgement (platform operators)",
    description:
      "There is no merchant ledger to post to: the resolution is an acknowledgement with a reason, audited with the operator as actor. A merchant's exception is 404 here; a resolved one answers 409.",
    tags: ["operator"],
    auth: "required",
    // One transaction, nothing called outside: the key and the answer commit with the work.
    oneTransaction: true,
    idempotency: "required",
    params: Schema.Struct({ id: idOf(ReconciliationExceptionId) }),
    body: PlatformResolutionBody,
    responses: { 200: ReconciliationExceptionWire },
    problems: [403, 404, 409, 422],
    handler: ({ principal, params, body }) =>
      acknowledgePlatformReconciliationException(principal, policy, params.id, body.reason).pipe(
        Effect.map((exception) => ({ status: 200, body: reconciliationExceptionView(exception) })),
      ),
  }),
];
