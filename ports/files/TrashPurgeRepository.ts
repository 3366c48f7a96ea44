/**
 * What the trash retention purge reads and deletes. A purge removes a trash root with every node
 * under it (whatever their own trash state) and the rows that hang on them: ACL entries, share
 * links, versions and their thumbnails, settled upload sessions and their parts. The change log's rows go by pruning
 * (ChangesRepository.deleteThrough), the bytes by the drive counter, the objects after commit.
 */
import { Context, type Effect } from "effect";

/** A trash root past retention. */
export interface DueTrashRoot {
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly trashedAt: Date;
}

/** A stored object and its size. */
export interface PurgedObject {
  readonly key: string;
  readonly sizeBytes: number;
}

/** What purging a subtree would remove, and what stands in its way. */
export interface PurgeSurvey {
  /** Nodes under and including the root. */
  readonly nodeCount: number;
  /** A node of the subtree, or an ancestor of its root (a held folder it was trashed out of), is under legal hold. */
  readonly held: boolean;
  /** A node of the subtree is not trashed (restored into a trashed folder). */
  readonly active: boolean;
  /** An open upload session targets the subtree (its reservation settles first). */
  readonly openUploads: boolean;
  /** Versions of the subtree's files. */
  readonly versionCount: number;
  /** Objects only the subtree's versions reference (each once): freed with it. */
  readonly releasedObjects: ReadonlyArray<PurgedObject>;
  /** Thumbnail objects of the subtree's versions (not counted in the quota). */
  readonly thumbnailKeys: ReadonlyArray<string>;
  /** The highest change seq naming a node of the subtree (0 when none). */
  readonly lastChangeSeq: number;
}

export interface TrashPurgeRepository {
  /** Trash roots trashed before `before` across workspaces, oldest first, after the `(trashedAt, id)` key. */
  readonly dueRoots: (before: Date, after: readonly [Date, string] | null, limit: number) => Effect.Effect<ReadonlyArray<DueTrashRoot>>;
  /** Surveys the subtree under and including `rootId`. */
  readonly survey: (workspaceId: string, rootId: string) => Effect.Effect<PurgeSurvey>;
  /**
   * Deletes the subtree's nodes and the rows hanging on them (inside the caller's transaction,
   * after its change rows were pruned).
   */
  readonly remove: (workspaceId: string, rootId: string) => Effect.Effect<void>;
}
export const TrashPurgeRepository = Context.GenericTag<TrashPurgeRepository>("domainkit/files/TrashPurgeRepository");
