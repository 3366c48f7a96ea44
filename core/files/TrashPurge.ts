/**
 * The trash retention purge of one trash root (spec: "trash purge follows retention and legal
 * hold"). In one transaction, under the drive lock (so no namespace change, restore or upload
 * completion interleaves): the root must still be trashed, not yet purged and past retention; the
 * subtree under it (every node, whatever its own trash state) is kept whole while any node of it,
 * or any ancestor of the root (a held folder it was trashed out of), is under legal hold, not
 * trashed, or the target of an open upload session (that session's expiry or completion settles
 * it first; the next run purges). Otherwise its content rows are deleted and its nodes reduced to
 * stubs (no name, no content): the change log keeps its rows, so a cursor inside the change window
 * still reads the tombstone (spec: "A deletion leaves a tombstone kept through the cursor
 * window"); the change retention deletes the stubs once their changes leave the window
 * (ChangeRetention.ts). The bytes of the objects only the subtree referenced are released from
 * `used_bytes` once, and an audit entry records the purge. The objects (and the versions'
 * thumbnails) are removed after commit, and the same transaction schedules their removal again a
 * few minutes later (ObjectRemoval.ts), so a failure of the store does not leave them for good;
 * an object another version still references is kept.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Ids } from "../../ports/Ids.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesAudit } from "../../ports/files/FilesAudit.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { TrashPurgeRepository } from "../../ports/files/TrashPurgeRepository.js";
import { withSpan } from "../kernel/Span.js";
import { scheduleObjectRemoval } from "./ObjectRemoval.js";
import { followUpOfCommitted } from "../kernel/FollowUp.js";

/** The actor recorded for purges. */
export const trashRetentionActor = "system:files-trash-retention";

/** What one purge attempt did. */
export type PurgeOutcome =
  | { readonly outcome: "purged"; readonly nodes: number; readonly versions: number; readonly releasedBytes: number }
  /** A node of the subtree is under legal hold: kept, tried again on the next run. */
  | { readonly outcome: "held" }
  /** An open upload or an active node in the subtree: kept until it settles. */
  | { readonly outcome: "busy" }
  /** Restored, purged already, or not yet past retention. */
  | { readonly outcome: "not_due" };

/** An outcome and the objects to remove once it committed. */
interface Settled {
  readonly outcome: PurgeOutcome;
  readonly objectKeys: ReadonlyArray<string>;
}

const kept = (outcome: "held" | "busy" | "not_due"): Settled => ({ outcome: { outcome }, objectKeys: [] });

/** Purges the trash root `rootId` when it was trashed before `cutoff`. */
export const purgeTrashRoot = (workspaceId: string, rootId: string, cutoff: Date) =>
  Effect.gen(function* () {
    const done = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const drive = yield* (yield* DriveRepository).lock(workspaceId);
        const root = yield* (yield* NodesRepository).find(workspaceId, rootId);
        if (drive === null || root === null || root.trashedAt === null || root.trashRootId !== root.id || root.trashedAt.getTime() >= cutoff.getTime()) {
          return kept("not_due");
        }
        const purge = yield* TrashPurgeRepository;
        const survey = yield* purge.survey(workspaceId, rootId);
        if (survey.held) return kept("held");
        if (survey.active || survey.openUploads) return kept("busy");
        const at = yield* now;
        yield* purge.reduceToStubs(workspaceId, rootId, at);
        const releasedBytes = survey.releasedObjects.reduce((sum, o) => sum + o.sizeBytes, 0);
        if (releasedBytes > 0) yield* (yield* DriveRepository).adjust(workspaceId, { reserved: 0, used: -releasedBytes }, at);
        yield* (yield* FilesAudit).append({
          id: yield* (yield* Ids).next,
          workspaceId: root.workspaceId,
          actorId: trashRetentionActor,
          action: "node.purged",
          targetId: rootId,
          reason: null,
          data: {
            name: root.name,
            kind: root.kind,
            trashed_at: root.trashedAt.toISOString(),
            nodes: survey.nodeCount,
            versions: survey.versionCount,
            released_bytes: releasedBytes,
          },
          createdAt: at,
        });
        const objectKeys = [...survey.releasedObjects.map((o) => o.key), ...survey.thumbnailKeys];
        // Durable with the deletion: if the removal below fails, the job removes them.
        yield* scheduleObjectRemoval(`purge:${rootId}`, objectKeys, at);
        const purged: Settled = { outcome: { outcome: "purged", nodes: survey.nodeCount, versions: survey.versionCount, releasedBytes }, objectKeys };
        return purged;
      }),
    );
    // After commit: the versions are gone, so nothing can reach these objects any more.
    const store = yield* ObjectStore;
    yield* Effect.forEach(
      done.objectKeys,
      (key) => followUpOfCommitted(store.remove(key), "files: removing a purged object", { key }),
      { discard: true },
    );
    return done.outcome;
  }).pipe(withSpan("files.purgeTrashRoot"));
