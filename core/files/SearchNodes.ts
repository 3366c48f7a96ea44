/**
 * `GET /v1/workspaces/:id/drive/search?q=&cursor=` (spec, background work: "search indexing"):
 * a member finds the drive's nodes whose name — or the text of their current version, when it is
 * text-like and indexed — holds every word of `q` (each as a prefix). Only nodes the caller can
 * see (a grant on the node or an ancestor, as the feed and the trash decide), active ones only,
 * filtered in the index's query before the page limit; text of any version but the current
 * published one is never matched. Newest nodes first (ids are time-ordered), a stable keyset under
 * an index that keeps changing. The index is eventually consistent (SearchIndexing.ts); trash and
 * restore take effect at once. A non-member, or another tenant's workspace, answers 404.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { ValidationFailed, type InvalidCursor, type NotFound } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { searchTerms } from "../kernel/SearchTerms.js";
import { withSpan } from "../kernel/Span.js";
import { NodeSearchIndex } from "../../ports/files/NodeSearchIndex.js";
import { requireMember } from "./Access.js";
import type { Node } from "./model/Node.js";
import type { FilesServices } from "./Services.js";

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
    const before = input.cursor === null ? undefined : (yield* decodeCursor(IdCursorKey, input.cursor))[0];
    const rows = yield* (yield* NodeSearchIndex).search({ workspaceId: input.workspaceId, userId: input.userId, terms, beforeId: before, limit: input.limit + 1 });
    return pageFrom(rows, input.limit, (n) => [n.id]);
  }).pipe(withSpan("files.searchNodes"));
