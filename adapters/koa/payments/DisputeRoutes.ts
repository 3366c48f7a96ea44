/** The read-only disputes projection of the calling merchant (scope ledger:read). */
import { Effect, Schema } from "effect";
import { listDisputes } from "../../../core/payments/DisputeProjection.js";
import { DisputeWire, disputeView } from "../../../core/payments/model/Dispute.js";
import { PageOf, mapPage } from "../../../core/kernel/Page.js";
import { pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";

/** GET /v1/disputes — the merchant's disputes, newest first. */
const listDisputesRoute = defineRoute({
  method: "GET",
  path: "/v1/disputes",
  operationId: "listDisputes",
  summary: "List the merchant's disputes (read-only projection of provider events)",
  tags: ["payments"],
  auth: "required",
  pagination: true,
  query: Schema.Struct(pageQueryFields),
  responses: { 200: PageOf(DisputeWire) },
  problems: [400, 403],
  handler: ({ principal, page }) =>
    listDisputes(principal, page).pipe(
      Effect.map((page) => ({ status: 200, body: mapPage(page, disputeView) })),
    ),
});

/** The dispute routes. */
export const disputeRoutes = [listDisputesRoute];
