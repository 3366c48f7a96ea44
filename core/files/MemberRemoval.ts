/**
 * A member removed from the workspace (files fix 11's open part): their sync client holds a copy
 * of what they could see, and must learn to drop it. Membership is the host's (WorkspaceDirectory),
 * so the host's membership source announces a removal as an event; this consumer (durable, at
 * least once, deduplicated by its inbox) writes one `node.left_view` change of the drive's root
 * addressed to the removed user. The root stands for the whole drive: their client drops its copy
 * of the workspace. The removed user still reads the left-view changes addressed to them
 * (ListChanges.ts); invited back, they read the root entering their view (MemberAddition.ts).
 * In the same transaction their open upload sessions of the workspace are aborted as
 * DELETE /v1/uploads/:id aborts one (audit 2, F5): the reservation released once, the part grants
 * answering 409 upload_not_open; the store side (the S3 multipart upload, whose part URLs then
 * die) runs after commit from a keyed job (UploadStoreAbort.ts).
 */
import { Effect } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { WorkspaceDirectory } from "../../ports/files/WorkspaceDirectory.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { now } from "../kernel/Clock.js";
import { recordLeftView } from "./LeftView.js";
import { settleWithoutVersionInTransaction } from "./SettleUpload.js";
import { scheduleUploadStoreAbort } from "./UploadStoreAbort.js";

/** A user removed from a workspace, as the host's membership source announces it. */
export interface WorkspaceMemberRemoved {
  readonly workspaceId: string;
  readonly userId: string;
  /** Who removed them (recorded as the change's actor). */
  readonly actorId: string;
}

/** Reads a removal out of an event of the host's membership source; null for any other event. */
export type MemberRemovalOf = (event: EventEnvelope) => WorkspaceMemberRemoved | null;

/** The inbox name of the consumer. */
export const memberRemovalConsumerName = "files.member_removal";

/**
 * Writes the removed user's `node.left_view` change of the drive's root, under the drive lock, in
 * the caller's transaction (the consumer's, with its inbox record). Nothing when the workspace has
 * no drive (nothing was synced), or when the user is a member again (the removal was undone
 * before this ran: their copy is still theirs to keep).
 */
export const recordMemberLeftDrive = (removal: WorkspaceMemberRemoved) =>
  Effect.gen(function* () {
    if ((yield* (yield* WorkspaceDirectory).standing(removal.workspaceId, removal.userId)) !== null) return;
    const drive = yield* (yield* DriveRepository).lock(removal.workspaceId);
    if (drive === null) return;
    yield* recordLeftView({ workspaceId: drive.workspaceId, nodeId: drive.rootNodeId, userIds: [removal.userId], actorId: removal.actorId });
    yield* abortRemovedMemberUploads(removal);
  });

/**
 * Aborts every open upload session the removed user holds in the workspace, in the caller's
 * transaction; each settled here gets its store side scheduled. A session settled meanwhile (a
 * complete or the expiry won) is left to that settlement.
 */
export const abortRemovedMemberUploads = (removal: WorkspaceMemberRemoved) =>
  Effect.gen(function* () {
    const open = yield* (yield* UploadsRepository).openOf(removal.workspaceId, removal.userId);
    const at = yield* now;
    yield* Effect.forEach(
      open,
      (session) =>
        // (A multipart session's store abort the settlement schedules itself.)
        Effect.flatMap(settleWithoutVersionInTransaction(session, "abort"), (released) =>
          released === null || session.storeUploadId !== null ? Effect.void : scheduleUploadStoreAbort(session, at),
        ),
      { discard: true },
    );
  });

/** The consumer (shaped as adapters/worker's Consumer) of the removals `removalOf` recognizes. */
export const memberRemovalConsumer = (removalOf: MemberRemovalOf) => ({
  name: memberRemovalConsumerName,
  handles: (event: EventEnvelope): boolean => removalOf(event) !== null,
  handle: (event: EventEnvelope) => {
    const removal = removalOf(event);
    return removal === null ? Effect.void : recordMemberLeftDrive(removal);
  },
});
