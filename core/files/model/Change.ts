/**
 * One entry of a workspace's change log: `seq` is monotonic per workspace (allocated from the
 * drive's counter under its row lock, and refused by a trigger if not above the last), so a sync
 * client keeps its cursor and asks for what follows. Append-only.
 */
import { Schema } from "effect";
import { FileVersionId, NodeId, WorkspaceId } from "./Ids.js";
import { NodeTombstone, NodeView } from "./Node.js";

/**
 * What happened to the node. `node.trashed` leaves a tombstone in the feed; `node.left_view` is
 * addressed to one user (its recipient, ChangesRepository.append) whose view the node left (moved out of their reach, or
 * their grant revoked), and leaves a tombstone in that user's feed only; `node.entered_view` is
 * addressed to one user whose view the node (with its subtree) entered (granted to them, moved
 * into their reach, the drive's root when they are invited back), and shows the node to that user only.
 */
export const ChangeType = Schema.Literal(
  "node.created",
  "node.renamed",
  "node.moved",
  "node.trashed",
  "node.restored",
  "version.published",
  "node.left_view",
  "node.entered_view",
);
export type ChangeType = typeof ChangeType.Type;

/** The change record. */
export const Change = Schema.Struct({
  workspaceId: WorkspaceId,
  seq: Schema.Int,
  nodeId: NodeId,
  type: ChangeType,
  versionId: Schema.NullOr(FileVersionId),
  actorId: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type Change = typeof Change.Type;

/** One item of the change feed: the node as it is now, or its tombstone once trashed or out of the caller's view. */
export const ChangeItem = Schema.Struct({
  seq: Schema.Int,
  nodeId: NodeId,
  type: ChangeType,
  node: Schema.NullOr(NodeView),
  tombstone: Schema.NullOr(NodeTombstone),
});
export type ChangeItem = typeof ChangeItem.Type;

/** A page of the feed: `nextCursor` is never null (a sync client keeps it for later changes). */
export interface ChangePage {
  readonly data: ReadonlyArray<ChangeItem>;
  readonly nextCursor: string;
  readonly hasMore: boolean;
}
