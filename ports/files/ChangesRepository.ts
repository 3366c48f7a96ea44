/** The per-workspace change log that drives sync (append-only). */
import { Context, type Effect } from "effect";
import type { Change } from "../../core/files/model/Change.js";
import type { Node } from "../../core/files/model/Node.js";

export interface ChangesRepository {
  /** Appends a change (its `seq` from DriveRepository.nextChangeSeq, in the same transaction). */
  readonly append: (change: Change) => Effect.Effect<void>;
  /**
   * Changes after `afterSeq` in sequence order with their node as it is now, only those on nodes
   * `userId` can currently see (a direct grant on the node or an ancestor), filtered before `limit`.
   */
  readonly list: (req: {
    readonly workspaceId: string;
    readonly userId: string;
    readonly afterSeq: number;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<{ readonly change: Change; readonly node: Node }>>;
  /** The highest seq of the workspace's changes recorded before `at` (0 when none). */
  readonly lastSeqBefore: (workspaceId: string, at: Date) => Effect.Effect<number>;
  /**
   * Deletes the workspace's changes at or below `seq`; answers how many. The database refuses
   * deleting a change above the drive's `pruned_through_seq` (advance it first).
   */
  readonly deleteThrough: (workspaceId: string, seq: number) => Effect.Effect<number>;
}
export const ChangesRepository = Context.GenericTag<ChangesRepository>("domainkit/files/ChangesRepository");
