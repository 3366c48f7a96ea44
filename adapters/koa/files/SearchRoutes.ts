/** GET /v1/workspaces/:id/drive/search: the drive's nodes the caller can see, by name and text (eventually consistent index). */
import { Effect } from "effect";
import { PageOf } from "../../../core/kernel/Page.js";
import { searchNodes } from "../../../core/files/SearchNodes.js";
import { defineRoute } from "../Route.js";
import { inWorkspace } from "./Callers.js";
import { DriveSearchQuery, NodeResponse, WorkspaceParams } from "./FilesSchemas.js";

/** GET /v1/workspaces/:id/drive/search?q=&cursor= — a member; every word must match (as a prefix); newest first; a bounded scan per request (short pages with a cursor). */
export const searchDriveRoute = defineRoute({
  method: "GET",
  path: "/v1/workspaces/:id/drive/search",
  operationId: "searchDrive",
  summary: "Search the drive's nodes by name and by the text of their current version (keyset pages, newest first in the index's order)",
  description:
    "Only active nodes the caller can see (a grant on the node or an ancestor), filtered before the page limit. Text is indexed for text-like current versions " +
    "(the first 64 KiB by default: FilesSettings.searchTextMaxBytes), eventually after publishing; a version that is not the current published one is never matched. 422 when `q` has no word. " +
    "A request examines a bounded number of matches (2,000 by default): when that bound is reached before the page is full, the page is short — possibly empty — " +
    "and `next_cursor` goes on after the last match examined. Follow `next_cursor` until it is null; a short page is not the end of the results.",
  tags: ["files"],
  auth: "required",
  pagination: true,
  params: WorkspaceParams,
  query: DriveSearchQuery,
  responses: { 200: PageOf(NodeResponse) },
  problems: [400, 404, 422],
  handler: ({ principal, params, query, page }) =>
    inWorkspace(principal, params.id, ({ userId, workspaceId }) => searchNodes({ userId, workspaceId, q: query.q, cursor: page.cursor ?? null, limit: page.limit })).pipe(
      Effect.map((found) => ({ status: 200, body: found })),
    ),
});

/** Drive search routes. */
export const driveSearchRoutes = [searchDriveRoute];
