/**
 * Reading the tree: `GET /v1/nodes/:id` (a viewer; its route answers NodeMetadata.ts) and
 * `GET /v1/nodes/:id/children?cursor` (spec: "List authorized child nodes"). A caller with a role
 * on the folder sees every active child; a member at the root without one sees only the children
 * granted to them — filtered in the query, before the page limit.
 */
import { Effect, Schema } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import type { Forbidden, InvalidCursor, NotFound } from "../kernel/Errors.js";
import { pageFrom, type Page } from "../kernel/Page.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { requireAccess } from "./Access.js";
import type { Node } from "./model/Node.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** The key of a children page: `[name, id]`. */
export const ChildrenCursorKey = Schema.Tuple(Schema.String, Schema.String);

/** One node the caller may view. */
export const getNode = (input: { readonly userId: string; readonly workspaceId: string; readonly nodeId: string }): Effect.Effect<Node, NotFound | Forbidden, FilesServices> =>
  Effect.map(requireAccess(input.workspaceId, input.userId, input.nodeId, "view"), (a) => a.node).pipe(withSpan("files.getNode"));

/** One page of the active children the caller may see. */
export const listChildren = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly cursor: string | null;
  readonly limit: number;
}): Effect.Effect<Page<Node>, NotFound | Forbidden | InvalidCursor, FilesServices> =>
  Effect.gen(function* () {
    const access = yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "view");
    const after = input.cursor === null ? null : yield* decodeCursor(ChildrenCursorKey, input.cursor);
    const rows = yield* (yield* NodesRepository).children({
      workspaceId: input.workspaceId,
      parentId: input.nodeId,
      filter: access.role === null ? { kind: "granted", userId: input.userId } : { kind: "all" },
      after,
      limit: input.limit + 1,
    });
    return pageFrom(rows, input.limit, (n) => [n.name, n.id]);
  }).pipe(withSpan("files.listChildren"));
