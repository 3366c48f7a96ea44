/**
 * What the trash retention purge reads and deletes. A purge takes a trash root with every node
 * under it (whatever their own trash state) in two steps. At trash retention the rows that hold
 * content go (share links, versions and their thumbnails, search documents, settled upload
 * sessions and their parts; the bytes by the drive counter, the objects after commit) and the
 * nodes become stubs (`purged_at`; no name, no content) that keep what the change feed needs:
 * id, parent, kind, trash time, and the ACL entries its visibility walks. When the subtree's
 * change rows have left the change window (ChangesRepository.deleteThrough), the change
 * retention deletes the stubs and their ACL entries.
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
  /** Trash roots not yet purged, trashed before `before` across workspaces, oldest first, after the `(trashedAt, id)` key. */
  readonly dueRoots: (before: Date, after: readonly [Date, string] | null, limit: number) => Effect.Effect<ReadonlyArray<DueTrashRoot>>;
  /** Surveys the subtree under and including `rootId`. */
  readonly survey: (workspaceId: string, rootId: string) => Effect.Effect<PurgeSurvey>;
  /**
   * Deletes the content of the subtree (links, thumbnails, search documents, versions, settled
   * sessions) and reduces its nodes to stubs purged at `at` (inside the caller's transaction).
   */
  readonly reduceToStubs: (workspaceId: string, rootId: string, at: Date) => Effect.Effect<void>;
  /**
   * Deletes, with their ACL entries, the purged subtrees of the workspace (at most `limit`,
   * oldest purge first) none of whose nodes has a change row left; answers the nodes deleted.
   */
  readonly removeStubsOutOfWindow: (workspaceId: string, limit: number) => Effect.Effect<number>;
}
export const TrashPurgeRepository = Context.GenericTag<TrashPurgeRepository>("domainkit/files/TrashPurgeRepository");
