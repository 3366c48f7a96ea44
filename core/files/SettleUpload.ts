/**
 * Ends an open upload session without a version (abort, expiry, failed verification): one
 * conditional update moves it out of `open` and zeroes its reservation, and in the same
 * transaction the drive's reserved counter gives those bytes back — so the reservation is
 * released exactly once, however often this runs. A session's part objects are deleted afterwards
 * (outside the transaction; deleting is idempotent), and the same transaction schedules their
 * removal again (ObjectRemoval.ts), so a store failure does not leave them for good. A native
 * multipart upload is aborted in the store after commit too, and the same transaction schedules
 * the keyed job files.upload_store_abort (UploadStoreAbort.ts), which the runner retries until the
 * store answers. A settlement that finds the session already settled (a complete won the race) removes
 * nothing.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { followUpOfCommitted } from "../kernel/FollowUp.js";
import { release } from "../kernel/QuotaReservation.js";
import type { ObjectStore } from "../../ports/ObjectStore.js";
import type { Jobs } from "../../ports/Jobs.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { quotaStateOf } from "./model/Drive.js";
import type { UploadSession } from "./model/UploadSession.js";
import { assembledKey } from "./ObjectKeys.js";
import { scheduleObjectRemoval, scheduleObjectRemovalAfterGrants } from "./ObjectRemoval.js";
import { removeSessionObjects } from "./SessionObjects.js";
import { scheduleUploadStoreAbort } from "./UploadStoreAbort.js";
import { nextUploadStatus, type UploadTrigger } from "./UploadStatus.js";

/**
 * The settlement's writes, in the caller's transaction: `open` -> the trigger's status, the
 * reservation released once, the part objects' removal or the native multipart upload's abort
 * scheduled. Answers the bytes released, or null when the session was already settled (or its
 * drive is gone).
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
    // A native multipart upload: aborted in the store by its own job, after commit.
    if (session.storeUploadId !== null) yield* scheduleUploadStoreAbort(session, at);
    // Part objects: removed after commit; this job removes them if that fails.
    else {
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
    // At once, so a cancelled upload's part grants stop storing now: a store failure here is
    // logged, and the job scheduled above (the parts' removal, or the multipart upload's abort)
    // retries. Removing and aborting are idempotent.
    yield* followUpOfCommitted(removeSessionObjects(session), "files: removing a settled upload's objects", { upload_id: session.id });
    return released;
  });
