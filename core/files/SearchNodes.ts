/**
 * `GET /v1/workspaces/:id/drive/search?q=&cursor=` (spec, background work: "search indexing"):
 * a member finds the drive's nodes whose name — or the text of their current version, when it is
 * text-like and indexed — holds every word of `q` (each as a prefix). Only nodes the caller can
 * see (a grant on the node or an ancestor, as the feed and the trash decide), active ones only,
 * filtered in the index's query before the page limit; text of any version but the current
 * published one is never matched. Newest first in the index's order, a stable keyset (the cursor
 * holds the index's position) under an index that keeps changing. A caller who sees part of the
 * drive gets full pages (the index searches among the nodes they see). For a caller who sees every
 * node, or more than the index's bound of nodes, the index examines a bounded number of matches
 * per request: when that bound stops it before the page is full, the page is short (even empty)
 * and its cursor goes on after the last match examined — the client follows `next_cursor` until
 * it is null, as on any list (what that tells a reader who sees that many nodes: docs/known-gaps.md).
 * The index is eventually consistent (SearchIndexing.ts); trash and restore take effect at once.
 * A non-member, or another tenant's workspace, answers 404.
 */
import { Effect, Schema } from "effect";
import { decodeCursor, encodeCursor } from "../kernel/Cursor.js";
import { ValidationFailed, type InvalidCursor, type NotFound } from "../kernel/Errors.js";
import { mapPage, pageFrom, type Page } from "../kernel/Page.js";
import { searchTerms } from "../kernel/SearchTerms.js";
import { withSpan } from "../kernel/Span.js";
import { NodeSearchIndex } from "../../ports/files/NodeSearchIndex.js";
import { requireMember } from "./Access.js";
import type { Node } from "./model/Node.js";
import type { FilesServices } from "./Services.js";

/** The key of a search cursor: the index's position of the last hit, or of the last match examined. */
const SearchCursorKey = Schema.Tuple(Schema.String);

/** One page of the nodes matching `q` that the caller may see. */
export const searchNodes = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly q: string;
  readonly cursor: string | null;
  readonly limit: number;
}): Effect.Effect<Page<Node>, NotFound | ValidationFailed | InvalidCursor, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(input.workspaceId, input.userId);
    const terms = searchTerms(input.q);
    if (terms.length === 0) return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "q", message: "must contain a word" }] }));
    const after = input.cursor === null ? undefined : (yield* decodeCursor(SearchCursorKey, input.cursor))[0];
    const found = yield* (yield* NodeSearchIndex).search({ workspaceId: input.workspaceId, userId: input.userId, terms, after, limit: input.limit + 1 });
    const page = mapPage(pageFrom(found.hits, input.limit, (hit) => [hit.position]), (hit) => hit.node);
    // Short of a full page because the bound stopped the scan: go on after the last match examined.
    return page.next_cursor === null && found.scannedTo !== null ? { data: page.data, next_cursor: encodeCursor([found.scannedTo]) } : page;
  }).pipe(withSpan("files.searchNodes"));
