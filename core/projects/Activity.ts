/**
 * The activity feed (spec rule 6): TaskEvents newest first by (created_at, id) with an opaque
 * keyset cursor, restricted to the projects the caller can see inside the query (Access.visibleProjectScope), so the page
 * limit counts only visible events. A new event sorts before page one and never shifts a page
 * the client already holds.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import type { Forbidden, InvalidCursor, NotFound } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { requireUser, visibleProjectScope, workspaceAccess } from "./Access.js";
import type { TaskEvent } from "./model/TaskEvent.js";
import { pageFrom, TimeIdCursorKey, type Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import type { WorkspaceId } from "./model/Ids.js";

/** One page of the caller's activity, optionally within one workspace. */
export const listActivity = (
  principal: Principal,
  query: { readonly workspaceId?: WorkspaceId | undefined; readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<TaskEvent>, Forbidden | NotFound | InvalidCursor, WorkspacesRepository | ProjectsRepository | TasksRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    if (query.workspaceId !== undefined) yield* workspaceAccess(userId, query.workspaceId);
    const before = query.cursor === undefined ? undefined : yield* decodeCursor(TimeIdCursorKey, query.cursor);
    const scope = yield* visibleProjectScope(userId, query.workspaceId);
    const rows = yield* (yield* TasksRepository).listEvents({
      scope,
      before: before === undefined ? undefined : { createdAt: before[0], id: before[1] },
      limit: query.limit + 1,
    });
    return pageFrom(rows, query.limit, (e) => [e.createdAt.toISOString(), e.id]);
  }).pipe(withSpan("Projects.listActivity"));
