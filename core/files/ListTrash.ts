/**
 * `GET /v1/workspaces/:id/trash`: a member lists what was trashed — the nodes trashed as roots
 * (a trashed folder stands for its subtree, which comes back with it) — newest first, only those
 * the caller can see (a grant on the node or an ancestor), filtered in the query before the page
 * limit. Restore is offered on exactly these nodes (`POST /v1/nodes/:id/restore`).
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { InvalidCursor, type NotFound } from "../kernel/Errors.js";
import { pageFrom, TimeIdCursorKey, type Page } from "../kernel/Page.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { requireMember } from "./Access.js";
import type { Node } from "./model/Node.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** One page of the trash the caller may see. */
export const listTrash = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly cursor: string | null;
  readonly limit: number;
}): Effect.Effect<Page<Node>, NotFound | InvalidCursor, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(input.workspaceId, input.userId);
    const key = input.cursor === null ? null : yield* decodeCursor(TimeIdCursorKey, input.cursor);
    const after: readonly [Date, string] | null = key === null ? null : [new Date(key[0]), key[1]];
    if (after !== null && Number.isNaN(after[0].getTime())) return yield* Effect.fail(new InvalidCursor({}));
    const rows = yield* (yield* NodesRepository).trashRoots({ workspaceId: input.workspaceId, userId: input.userId, after, limit: input.limit + 1 });
    return pageFrom(rows, input.limit, (n) => [(n.trashedAt ?? n.updatedAt).toISOString(), n.id]);
  }).pipe(withSpan("files.listTrash"));
