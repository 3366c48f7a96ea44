/** The per-workspace change log that drives sync (append-only). */
import { Context, type Effect } from "effect";
import type { Change, ChangeType } from "../../core/files/model/Change.js";
import type { Node } from "../../core/files/model/Node.js";

/** What one bounded scan of the change log found. */
export interface ChangesScan {
  readonly items: ReadonlyArray<{ readonly change: Change; readonly node: Node }>;
  /** The last seq read (`afterSeq` when nothing was read). */
  readonly scannedThroughSeq: number;
  /** True when no change after `scannedThroughSeq` exists. */
  readonly exhausted: boolean;
}

export interface ChangesRepository {
  /**
   * Appends a change (its `seq` from DriveRepository.nextChangeSeq, in the same transaction).
   * `recipientId` addresses it to that one user (a `node.left_view` or `node.entered_view`
   * change, and only such a one).
   */
  readonly append: (change: Change, recipientId?: string) => Effect.Effect<void>;
  /**
   * Changes after `afterSeq` in sequence order with their node as it is now, only those on nodes
   * `userId` can currently see (a direct grant on the node or an ancestor), and the changes
   * addressed to `userId` (see `append`): a node.left_view one while the node is out of their view
   * (no grant on it or an ancestor, and not the root, which every member sees), a
   * node.entered_view one while it is in their view; up to `limit` of them.
   * `addressedOnly` (a reader who is no longer a member, and so sees nothing): only the
   * node.left_view changes addressed to `userId`, every one of them (what entered their view
   * before they left it is no longer theirs to list).
   * The work is bounded by the page, not by the workspace: the adapter reads changes in batches
   * and checks each batch's nodes by walking their ancestors, and stops after scanning a bounded
   * number of changes. `exhausted` says the log ended before the limit was reached; otherwise,
   * with fewer than `limit` items, the scan stopped at `scannedThroughSeq` (continue after it).
   */
  readonly list: (req: {
    readonly workspaceId: string;
    readonly userId: string;
    readonly afterSeq: number;
    readonly limit: number;
    readonly addressedOnly?: boolean;
  }) => Effect.Effect<ChangesScan>;
  /**
   * The users `list` shows change `seq` to now, as members (no one when it was never recorded or
   * was pruned): whoever has a grant on its node or an ancestor; for a change addressed to one
   * user, that user alone while the change's view rule holds (see `list`). One walk of the node's
   * ancestors, however many members the workspace has.
   */
  readonly readersOf: (workspaceId: string, seq: number) => Effect.Effect<ReadonlyArray<string>>;
  /** The change `seq` of the workspace's log, or null (never recorded, or pruned). */
  readonly find: (workspaceId: string, seq: number) => Effect.Effect<Change | null>;
  /** Whether any node.left_view change of the workspace's log (as retained) is addressed to `userId`. */
  readonly hasAddressedTo: (workspaceId: string, userId: string) => Effect.Effect<boolean>;
  /** The type of the last change of `nodeId` (as retained) addressed to `userId`, or null. */
  readonly lastAddressedTo: (workspaceId: string, userId: string, nodeId: string) => Effect.Effect<ChangeType | null>;
  /** The highest seq of the workspace's changes recorded before `at` (0 when none). */
  readonly lastSeqBefore: (workspaceId: string, at: Date) => Effect.Effect<number>;
  /**
   * Deletes the workspace's changes at or below `seq`; answers how many. The database refuses
   * deleting a change above the drive's `pruned_through_seq` (advance it first).
   */
  readonly deleteThrough: (workspaceId: string, seq: number) => Effect.Effect<number>;
}
export const ChangesRepository = Context.GenericTag<ChangesRepository>("domainkit/files/ChangesRepository");
