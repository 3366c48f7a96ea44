/** GET /v1/search: tasks and comments the caller can see (eventually consistent index). */
import { Effect, Schema } from "effect";
import { SearchHitView } from "../../../core/projects/model/SearchHit.js";
import { search } from "../../../core/projects/Search.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { pageQueryFields } from "../Pagination.js";
import { defineRoute } from "../Route.js";
import { WorkspaceId } from "../../../core/projects/model/Ids.js";
import { idOf } from "../RouteIds.js";

/** Query of GET /v1/search. */
export const SearchQuery = Schema.Struct({
  q: Schema.String.pipe(Schema.maxLength(500)),
  workspace_id: Schema.optional(idOf(WorkspaceId)),
  ...pageQueryFields,
});

/** GET /v1/search?q&workspace_id&cursor — every word must match (as a prefix); newest first. */
export const searchRoute = defineRoute({
  method: "GET",
  path: "/v1/search",
  operationId: "search",
  summary: "Search tasks and comments visible to the caller",
  description: "Filtered to projects the caller can see before the page limit; hits of tasks in the trash are left out.",
  tags: ["projects"],
  auth: "required",
  pagination: true,
  query: SearchQuery,
  responses: { 200: PageOf(SearchHitView) },
  problems: [400, 403, 422],
  handler: ({ principal, query, page }) =>
    search(principal, { q: query.q, workspaceId: query.workspace_id, cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((page) => ({ status: 200, body: page })),
    ),
});

/** Search routes. */
export const searchRoutes = [searchRoute];
