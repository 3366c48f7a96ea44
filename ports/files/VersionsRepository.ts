/** File versions: immutable bytes, a status that only moves by conditional update. */
import { Context, type Effect } from "effect";
import type { FileVersion, VersionStatus } from "../../core/files/model/FileVersion.js";

/** What a version's status move did (see `VersionsRepository.transition`). */
export type VersionTransitionOutcome = "unmoved" | "moved" | "made_current";

export interface VersionsRepository {
  /** Stores a new version. */
  readonly insert: (version: FileVersion) => Effect.Effect<void>;
  /** The workspace a version id belongs to, or null. */
  readonly workspaceOf: (id: string) => Effect.Effect<string | null>;
  /** The version of the workspace, or null. */
  readonly find: (workspaceId: string, id: string) => Effect.Effect<FileVersion | null>;
  /** The next version number of a file (1 for the first). */
  readonly nextNumber: (workspaceId: string, nodeId: string) => Effect.Effect<number>;
  /**
   * Moves a version from one of `from` to `to`; publishing (`makeCurrent`) also makes it the
   * file's one current version — only when its number is higher than the current one's (a
   * conditional update: a late scan of an older version never replaces a newer current one).
   * "unmoved" when the version was not in `from` (someone else moved it); "moved" when it moved
   * but did not become current; "made_current" when it moved and is now the current version.
   */
  readonly transition: (req: {
    readonly workspaceId: string;
    readonly id: string;
    readonly from: ReadonlyArray<VersionStatus>;
    readonly to: VersionStatus;
    readonly makeCurrent: boolean;
    readonly scanDetail: string | null;
    readonly at: Date;
  }) => Effect.Effect<VersionTransitionOutcome>;
  /**
   * Makes the file's latest published version current, when no version of it is current (after
   * its current one stopped being published); answers the file's current version, or null when
   * none is published.
   */
  readonly makeLatestPublishedCurrent: (workspaceId: string, nodeId: string) => Effect.Effect<FileVersion | null>;
  /** Records the type detected from a quarantined version's bytes (the scan's; once detected it stays). */
  readonly recordDetectedType: (workspaceId: string, id: string, detectedContentType: string) => Effect.Effect<void>;
  /** The workspace's versions stored in object `objectKey` (a restored version shares its original's), by number. */
  readonly listSharingObject: (workspaceId: string, objectKey: string) => Effect.Effect<ReadonlyArray<FileVersion>>;
  /** Versions in any of `statuses` across workspaces (security review), oldest first after the id key. */
  readonly listByStatus: (statuses: ReadonlyArray<VersionStatus>, afterId: string | null, limit: number) => Effect.Effect<ReadonlyArray<FileVersion>>;
  /** The versions of a file, newest first, after the `number` key. */
  readonly list: (workspaceId: string, nodeId: string, afterNumber: number | null, limit: number) => Effect.Effect<ReadonlyArray<FileVersion>>;
}
export const VersionsRepository = Context.GenericTag<VersionsRepository>("domainkit/files/VersionsRepository");
