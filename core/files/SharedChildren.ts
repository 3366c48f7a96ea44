/**
 * `GET /v1/file-shares/access/children?parent_id=` (share recipients): the holder of a live
 * token lists the active children of the shared folder, or of a folder inside it, in keyset pages
 * by name then id. Everything `resolveShare` refuses — a revoked, expired or unknown token, a
 * folder outside the shared subtree or under a trashed one — is 404; a file is 409 not_a_folder.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import type { InvalidCursor, NotFound } from "../kernel/Errors.js";
import { pageFrom, type Page } from "../kernel/Page.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { NotAFolder } from "./Errors.js";
import type { Node } from "./model/Node.js";
import { ChildrenCursorKey } from "./NodeQueries.js";
import type { FilesServices } from "./Services.js";
import { resolveShare } from "./ShareLinks.js";
import { withSpan } from "../kernel/Span.js";

/** One page of a shared folder's active children. */
export const listSharedChildren = (input: {
  readonly token: string | undefined;
  readonly parentId: string | null;
  readonly cursor: string | null;
  readonly limit: number;
}): Effect.Effect<Page<Node>, NotFound | NotAFolder | InvalidCursor, FilesServices> =>
  Effect.gen(function* () {
    const { link, node } = yield* resolveShare(input.token, input.parentId);
    if (node.kind !== "folder") return yield* Effect.fail(new NotAFolder({ nodeId: node.id }));
    const after = input.cursor === null ? null : yield* decodeCursor(ChildrenCursorKey, input.cursor);
    const rows = yield* (yield* NodesRepository).children({ workspaceId: link.workspaceId, parentId: node.id, filter: { kind: "all" }, after, limit: input.limit + 1 });
    return pageFrom(rows, input.limit, (n) => [n.name, n.id]);
  }).pipe(withSpan("files.listSharedChildren"));
