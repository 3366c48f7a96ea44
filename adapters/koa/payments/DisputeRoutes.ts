/** The read-only disputes projection of the calling merchant (scope ledger:read). */
import { Effect, Schema } from "effect";
import { listDisputes } from "../../../core/payments/DisputeProjection.js";
import { disputeStatuses, type Dispute } from "../../../core/payments/DisputeRecords.js";
import { PageOf, pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";

/** One dispute on the wire. */
export const DisputeView = Schema.Struct({
  id: Schema.String,
  object: Schema.Literal("dispute"),
  provider_dispute_id: Schema.String,
  payment_intent_id: Schema.String,
  amount_minor: Schema.Int,
  currency: Schema.String,
  reason: Schema.String,
  status: Schema.Literal(...disputeStatuses),
  created_at: Schema.String,
  updated_at: Schema.String,
});

/** A dispute record on the wire. */
export const disputeView = (d: Dispute): typeof DisputeView.Type => ({
  id: d.id,
  object: "dispute",
  provider_dispute_id: d.providerDisputeId,
  payment_intent_id: d.paymentIntentId,
  amount_minor: d.amountMinor,
  currency: d.currency,
  reason: d.reason,
  status: d.status,
  created_at: d.createdAt.toISOString(),
  updated_at: d.updatedAt.toISOString(),
});

/** GET /v1/disputes — the merchant's disputes, newest first. */
export const listDisputesRoute = defineRoute({
  method: "GET",
  path: "/v1/disputes",
  operationId: "listDisputes",
  summary: "List the merchant's disputes (read-only projection of provider events)",
  tags: ["payments"],
  auth: "required",
  idempotency: "none",
  pagination: true,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(DisputeView) },
  problems: [400, 403],
  handler: ({ principal, page }) =>
    listDisputes(principal, page).pipe(
      Effect.map((result) => ({ status: 200, body: { data: result.data.map(disputeView), next_cursor: result.nextCursor } })),
    ),
});
