/** GET /v1/activity: the caller's activity feed, newest first, filtered before the limit. */
import { Effect } from "effect";
import { listActivity } from "../../../core/projects/Activity.js";
import { ActivityView } from "../../../core/projects/model/TaskEvent.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { ActivityQuery } from "./ProjectSchemas.js";

/** GET /v1/activity?cursor&workspace_id — events of the projects the caller can see. */
export const listActivityRoute = defineRoute({
  method: "GET",
  path: "/v1/activity",
  operationId: "listActivity",
  summary: "Activity of the projects the caller can see, newest first by (created_at, id)",
  tags: ["projects"],
  auth: "required",
  pagination: true,
  query: ActivityQuery,
  responses: { 200: PageOf(ActivityView) },
  problems: [400, 403, 404],
  handler: ({ principal, query, page }) =>
    listActivity(principal, { workspaceId: query.workspace_id, cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((page) => ({ status: 200, body: page })),
    ),
});

/** Activity routes. */
export const activityRoutes = [listActivityRoute];
