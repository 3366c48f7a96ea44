/**
 * The sync change feed: a member reads the workspace's ordered change log, filtered by current
 * access before the limit. Unlike other lists `next_cursor` is never null (keep it to ask for
 * later changes); a cursor older than the window is 410 cursor_expired with `restart_cursor`.
 * Live: the caller's `drive:<workspace id>:<user id>` realtime channel announces each new change
 * they can see.
 */
import { Effect } from "effect";
import { CursorExpired } from "../../../core/files/Errors.js";
import { listChanges } from "../../../core/files/ListChanges.js";
import { defineRoute } from "../Route.js";
import { inWorkspace } from "./Callers.js";
import { ChangesPageResponse, ChangesQuery } from "./FilesSchemas.js";

/** GET /v1/changes?workspace_id=&cursor= — a member (a removed one: what is addressed to them); spec: 200, 410. */
export const listChangesRoute = defineRoute({
  method: "GET",
  path: "/v1/changes",
  operationId: "listChanges",
  summary: "Read the workspace's ordered sync changes after a cursor",
  description:
    "Each item carries the node as it is now, or its tombstone once trashed. `next_cursor` is never null; `has_more` says whether to ask again at once. " +
    "410 cursor_expired with `restart_cursor` when the cursor is older than the change window: list the tree again, then continue from it. " +
    "A node that left the caller's view comes as `node.left_view` with a tombstone (drop it and its subtree); one that entered it (granted, moved into reach, " +
    "the drive's root when invited back) as `node.entered_view` with the node (list it and its subtree). " +
    "A user removed from the workspace reads only the `node.left_view` changes addressed to them (that of the drive's root: drop the copy); other non-members get 404. " +
    "Subscribe to your own `drive:<workspace_id>:<your user id>` on /v1/realtime to learn of new changes you can see.",
  tags: ["files"],
  auth: "required",
  pagination: true,
  query: ChangesQuery,
  responses: { 200: ChangesPageResponse },
  problems: [400, 404, 410],
  handler: ({ principal, query, page }) =>
    inWorkspace(principal, query.workspace_id, ({ userId, workspaceId }) => listChanges({ userId, workspaceId, cursor: page.cursor ?? null, limit: page.limit })).pipe(
      Effect.map((changes) => ({ status: 200, body: changes })),
      // The restart point is a cursor of this list, bound to it like next_cursor (Pagination.ts).
      Effect.catchIf(
        (error): error is CursorExpired => error instanceof CursorExpired,
        (expired) =>
          Effect.flatMap(Effect.orDie(page.bind(expired.restartCursor)), (restartCursor) => Effect.fail(new CursorExpired({ restartCursor, detail: expired.detail }))),
      ),
    ),
});

/** Change feed routes. */
export const changeRoutes = [listChangesRoute];
