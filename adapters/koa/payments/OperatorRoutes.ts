/**
 * Platform operator routes: the cross-merchant list of dead-lettered merchant webhook
 * deliveries, and their replay under dual control. The operators are user ids from configuration (PLATFORM_OPERATORS), so the routes
 * are built from that list; anyone else is 403.
 */
import { Effect, Schema } from "effect";
import type { Route } from "../Route.js";
import { approveDeliveryReplay, requestDeliveryReplay, type OperatorPolicy } from "../../../core/payments/OperatorReplay.js";
import { listDeadDeliveries, type DeadDelivery } from "../../../core/payments/DeadDeliveries.js";
import type { ReplayRequest } from "../../../core/payments/WebhookEndpointRecords.js";
import { PageOf, pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";

const Id = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100));

/** Body of both steps: why (audited). */
export const ReplayReasonBody = Schema.Struct({ reason: Schema.String.pipe(Schema.minLength(1), Schema.maxLength(500)) });

/** A replay request on the wire. */
export const ReplayRequestView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("webhook_replay_request"),
  delivery_id: Schema.String,
  requested_by: Schema.String,
  reason: Schema.String,
  requested_at: Schema.String,
  approved_by: Schema.NullOr(Schema.String),
  approval_reason: Schema.NullOr(Schema.String),
  approved_at: Schema.NullOr(Schema.String),
});

/** A replay request record on the wire. */
export const replayRequestView = (r: ReplayRequest): typeof ReplayRequestView.Type => ({
  id: r.id,
  object: "webhook_replay_request",
  delivery_id: r.deliveryId,
  requested_by: r.requestedBy,
  reason: r.reason,
  requested_at: r.requestedAt.toISOString(),
  approved_by: r.approvedBy,
  approval_reason: r.approvalReason,
  approved_at: r.approvedAt?.toISOString() ?? null,
});

/** A dead delivery on the operators' list: ids, event type, attempts, last error, timestamps; never the payload. */
export const DeadDeliveryView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("webhook_delivery"),
  merchant_id: Schema.String,
  endpoint_id: Schema.String,
  event_id: Schema.String,
  event_type: Schema.String,
  status: Schema.Literal("pending", "succeeded", "dead"),
  attempts: Schema.Int,
  last_error: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  updated_at: Schema.String,
});

/** A dead delivery record on the wire. */
export const deadDeliveryView = (d: DeadDelivery): typeof DeadDeliveryView.Type => ({
  id: d.id,
  object: "webhook_delivery",
  merchant_id: d.merchantId,
  endpoint_id: d.endpointId,
  event_id: d.eventId,
  event_type: d.eventType,
  status: d.status,
  attempts: d.attempts,
  last_error: d.lastError,
  created_at: d.createdAt.toISOString(),
  updated_at: d.updatedAt.toISOString(),
});

/** The operator routes for `policy` (the configured platform operators). */
export const makeOperatorRoutes = (policy: OperatorPolicy): ReadonlyArray<Route> => [
  defineRoute({
    method: "GET",
    path: "/v1/operator/webhook-deliveries",
    operationId: "listDeadWebhookDeliveries",
    summary: "List dead-lettered merchant webhook deliveries across merchants (platform operators; keyset pages)",
    tags: ["operator"],
    auth: "required",
    idempotency: "none",
    pagination: true,
    // Only the dead-letter queue is an operator's concern; other statuses belong to each merchant.
    query: Schema.Struct({ ...pageQueryFields, status: Schema.Literal("dead") }),
    responses: { 200: PageOf(DeadDeliveryView) },
    problems: [400, 403],
    handler: ({ principal, page }) =>
      listDeadDeliveries(principal, policy, page).pipe(
        Effect.map((result) => ({ status: 200, body: { data: result.data.map(deadDeliveryView), next_cursor: result.nextCursor } })),
      ),
  }),
  defineRoute({
    method: "POST",
    path: "/v1/operator/webhook-deliveries/:id/replay-requests",
    operationId: "requestWebhookDeliveryReplay",
    summary: "Request the replay of a dead-lettered webhook delivery (first operator)",
    tags: ["operator"],
    auth: "required",
    idempotency: "required",
    params: Schema.Struct({ id: Id }),
    body: ReplayReasonBody,
    responses: { 201: ReplayRequestView },
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
    idempotency: "required",
    params: Schema.Struct({ id: Id, request_id: Id }),
    body: ReplayReasonBody,
    responses: { 200: ReplayRequestView },
    problems: [403, 404, 409, 422],
    handler: ({ principal, params, body }) =>
      approveDeliveryReplay(principal, policy, params.id, params.request_id, body.reason).pipe(
        Effect.map((r) => ({ status: 200, body: replayRequestView(r) })),
      ),
  }),
];
