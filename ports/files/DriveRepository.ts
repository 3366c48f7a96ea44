/**
 * The drives: one per workspace, holding the quota counter, the change sequence and the ACL
 * epoch. Namespace changes and reservations take the drive row first (`lock`, or `nextChangeSeq`
 * which locks it too), so they are serialized per workspace and change records commit in
 * sequence order.
 */
import { Context, type Effect } from "effect";
import type { Drive } from "../../core/files/model/Drive.js";
import type { Node } from "../../core/files/model/Node.js";

export interface DriveRepository {
  /** Stores a new drive and its root folder (inside the caller's transaction). */
  readonly create: (drive: Drive, root: Node) => Effect.Effect<void>;
  /** The drive of a workspace, or null. */
  readonly find: (workspaceId: string) => Effect.Effect<Drive | null>;
  /** The drive, its row locked until the transaction ends (Postgres FOR UPDATE), or null. */
  readonly lock: (workspaceId: string) => Effect.Effect<Drive | null>;
  /** Adds to the reserved and used counters (negative to release); the CHECK refuses a breach. */
  readonly adjust: (workspaceId: string, delta: { readonly reserved: number; readonly used: number }, at: Date) => Effect.Effect<void>;
  /** Sets the quota; false when the drive does not exist. */
  readonly setQuota: (workspaceId: string, quotaBytes: number, at: Date) => Effect.Effect<boolean>;
  /** Allocates the next change sequence number of the workspace (locks the drive row). */
  readonly nextChangeSeq: (workspaceId: string) => Effect.Effect<number>;
  /** Usage recomputed from the rows: bytes of every stored object of a version (each once), bytes held by open sessions and running extractions. */
  readonly usage: (workspaceId: string) => Effect.Effect<{ readonly versionBytes: number; readonly openReservedBytes: number }>;
  /** Up to `limit` workspaces that have a drive, in id order, after `afterWorkspaceId` (the quota sweep's pages). */
  readonly workspaces: (afterWorkspaceId: string | null, limit: number) => Effect.Effect<ReadonlyArray<string>>;
  /**
   * Advances the change retention mark to `seq` (never backwards, never past the change
   * sequence); answers the mark now stored. Cursors before the mark expire.
   */
  readonly pruneThrough: (workspaceId: string, seq: number) => Effect.Effect<number>;
  /** Advances the ACL epoch (a revocation); answers the new epoch. */
  readonly bumpAclEpoch: (workspaceId: string) => Effect.Effect<number>;
}
export const DriveRepository = Context.GenericTag<DriveRepository>("domainkit/files/DriveRepository");
