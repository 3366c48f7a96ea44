/**
 * Platform operator routes: replay of a dead-lettered merchant webhook delivery under dual
 * control. The operators are user ids from configuration (PLATFORM_OPERATORS), so the routes
 * are built from that list; anyone else is 403.
 */
import { Effect, Schema } from "effect";
import type { Route } from "../Route.js";
import { approveDeliveryReplay, requestDeliveryReplay, type OperatorPolicy } from "../../../core/payments/OperatorReplay.js";
import type { ReplayRequest } from "../../../core/payments/WebhookEndpointRecords.js";
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

/** The operator routes for `policy` (the configured platform operators). */
export const makeOperatorRoutes = (policy: OperatorPolicy): ReadonlyArray<Route> => [
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
