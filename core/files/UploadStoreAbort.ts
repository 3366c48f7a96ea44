/**
 * The store side of an abort that settled inside a transaction: kind `files.upload_store_abort`,
 * keyed by session, scheduled in that transaction and due at once. Every settlement of a native
 * multipart session without a version schedules it (SettleUpload.ts: DELETE /v1/uploads/:id, the
 * expiry, a failed verification); a member removal, for each session it settles
 * (MemberRemoval.ts). It aborts the session's native multipart upload (so its presigned
 * part URLs die) or removes its part objects, and the assembled object. Aborting and removing are
 * idempotent; a store failure fails the job, which the runner retries. An open session (never
 * settled) is left alone.
 */
import { Effect, Schema } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { withSpan } from "../kernel/Span.js";
import type { Jobs } from "../../ports/Jobs.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import type { UploadSession } from "./model/UploadSession.js";
import { removeSessionObjects } from "./SessionObjects.js";

export const uploadStoreAbortJob = defineJob({
  kind: "files.upload_store_abort",
  payload: Schema.Struct({ workspace_id: Schema.String, upload_id: Schema.String }),
  handle: (payload) =>
    Effect.gen(function* () {
      const session = yield* (yield* UploadsRepository).find(payload.workspace_id, payload.upload_id);
      if (session === null || session.status === "open") return;
      yield* removeSessionObjects(session);
    }).pipe(withSpan("files.abortUploadInStore")),
});

/** Schedules the store side of `session`'s abort (inside the transaction that settled it). */
export const scheduleUploadStoreAbort = (session: UploadSession, at: Date): Effect.Effect<void, never, Jobs> =>
  Effect.asVoid(uploadStoreAbortJob.schedule({ workspace_id: session.workspaceId, upload_id: session.id }, { key: `upload:${session.id}`, runAt: at }));
