/**
 * Ends an open upload session without a version (abort, expiry, failed verification): one
 * conditional update moves it out of `open` and zeroes its reservation, and in the same
 * transaction the drive's reserved counter gives those bytes back — so the reservation is
 * released exactly once, however often this runs. The session's objects are deleted afterwards
 * (outside the transaction; deleting is idempotent), and the same transaction schedules their
 * removal again (ObjectRemoval.ts), so a store failure does not leave them for good. A settlement
 * that finds the session already settled (a complete won the race) removes nothing.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { followUpOfCommitted } from "../kernel/FollowUp.js";
import { release } from "../kernel/QuotaReservation.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import type { Jobs } from "../../ports/Jobs.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { quotaStateOf } from "./model/Drive.js";
import type { UploadSession } from "./model/UploadSession.js";
import { assembledKey } from "./ObjectKeys.js";
import { scheduleObjectRemoval, scheduleObjectRemovalAfterGrants } from "./ObjectRemoval.js";
import { nextUploadStatus, type UploadTrigger } from "./UploadStatus.js";

/**
 * Deletes every object a session may have left: its part objects, or its native multipart upload
 * (aborted in the store; where the store cannot abort, a bucket lifecycle rule removes it), and
 * an assembled object.
 */
export const removeSessionObjects = (session: UploadSession): Effect.Effect<void, never, UploadsRepository | ObjectStore> =>
  Effect.gen(function* () {
    const store = yield* ObjectStore;
    const key = assembledKey(session.workspaceId, session.id);
    if (session.storeUploadId !== null) {
      if (store.multipart !== undefined) yield* store.multipart.abort({ key, uploadId: session.storeUploadId });
    } else {
      const parts = yield* (yield* UploadsRepository).parts(session.workspaceId, session.id);
      yield* Effect.forEach(parts, (p) => store.remove(p.objectKey), { discard: true });
    }
    yield* store.remove(key);
  });

/**
 * The settlement's writes, in the caller's transaction: `open` -> the trigger's status, the
 * reservation released once, the part objects' removal scheduled. Answers the bytes released, or
 * null when the session was already settled (or its drive is gone).
 */
export const settleWithoutVersionInTransaction = (
  session: UploadSession,
  trigger: Exclude<UploadTrigger, "complete">,
): Effect.Effect<number | null, never, UploadsRepository | DriveRepository | Jobs> =>
  Effect.gen(function* () {
    const to = yield* nextUploadStatus("open", trigger).pipe(Effect.orDie);
    const drives = yield* DriveRepository;
    const drive = yield* drives.lock(session.workspaceId);
    const at = yield* now;
    const uploads = yield* UploadsRepository;
    const bytes = yield* uploads.settle({ workspaceId: session.workspaceId, id: session.id, to: to === "open" ? "aborted" : to, versionId: null, at });
    if (bytes === null || drive === null) return null;
    // Removed after commit; this job removes them if that fails. (A native multipart upload is
    // aborted in the store instead, or removed by the bucket's lifecycle rule.)
    if (session.storeUploadId === null) {
      const parts = yield* uploads.parts(session.workspaceId, session.id);
      const keys = [...parts.map((p) => p.objectKey), assembledKey(session.workspaceId, session.id)];
      yield* scheduleObjectRemoval(`upload:${session.id}`, keys, at);
      // The session's part grants outlive it: what they store meanwhile goes once they expired.
      yield* scheduleObjectRemovalAfterGrants(`upload:${session.id}`, keys, session.expiresAt, at);
    }
    const after = yield* release(quotaStateOf(drive, { id: session.id, bytes }), session.id).pipe(Effect.orDie);
    yield* drives.adjust(session.workspaceId, { reserved: after.reserved - drive.reservedBytes, used: 0 }, at);
    return bytes;
  });

/** Settles an open session with `trigger`; answers the bytes released, or null when it was already settled. */
export const settleWithoutVersion = (
  session: UploadSession,
  trigger: Exclude<UploadTrigger, "complete">,
): Effect.Effect<number | null, never, Transactions | UploadsRepository | DriveRepository | ObjectStore | Jobs> =>
  Effect.gen(function* () {
    const released = yield* (yield* Transactions).run(settleWithoutVersionInTransaction(session, trigger));
    // Settled by someone else first: its objects are theirs to remove, or (a complete that won)
    // now the version's own; removing them here would lose the version's bytes.
    if (released === null) return null;
    // With a removal job scheduled above, a store failure here is logged and the job retries;
    // a native multipart upload's abort has no job, so its failure is the caller's to retry.
    const removal = removeSessionObjects(session);
    yield* session.storeUploadId === null ? followUpOfCommitted(removal, "files: removing a settled upload's objects", { upload_id: session.id }) : removal;
    return released;
  });
