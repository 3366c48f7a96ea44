/**
 * Search over tasks and comments (GET /v1/search?q=&cursor): only what the caller can see. The
 * visible projects (a short id list, or the caller's memberships: Access.visibleProjectScope)
 * are filtered by the index (with live tasks) inside its query, before the limit, so a guest never gets a hit from a project not shared
 * with it and a page is never short because of hidden rows. Results are newest first by
 * document id (time-ordered), a stable keyset under an index that keeps changing.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { ValidationFailed, type Forbidden, type InvalidCursor } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { SearchIndex } from "../../ports/projects/SearchIndex.js";
import type { SearchHit } from "./model/SearchHit.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { requireUser, visibleProjectScope } from "./Access.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import { searchTerms } from "../kernel/SearchTerms.js";
import type { WorkspaceId } from "./model/Ids.js";

// The query's words are the kernel's (every module's index matches the same words).
export { maxSearchTerms, searchTerms } from "../kernel/SearchTerms.js";

/** Tasks and comments matching every word of `q` in the projects the caller can see. */
export const search = (
  principal: Principal,
  query: { readonly q: string; readonly workspaceId?: WorkspaceId | undefined; readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<SearchHit>, Forbidden | ValidationFailed | InvalidCursor, SearchIndex | WorkspacesRepository | ProjectsRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const terms = searchTerms(query.q);
    if (terms.length === 0) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "q", message: "must contain a word" }] }));
    const before = query.cursor === undefined ? undefined : yield* decodeCursor(IdCursorKey, query.cursor);
    const scope = yield* visibleProjectScope(userId, query.workspaceId);
    const rows = yield* (yield* SearchIndex).search({ terms, scope, beforeId: before?.[0], limit: query.limit + 1 });
    return pageFrom(rows, query.limit, (h) => [h.id]);
  }).pipe(withSpan("Projects.search"));
