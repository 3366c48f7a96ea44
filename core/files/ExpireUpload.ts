/**
 * The upload expiry job (kind `files.upload_expiry`, keyed by session, due at the session's
 * expiry): an unfinished session is removed — its objects deleted and its reservation released
 * once. A session that completed or was aborted meanwhile is left alone.
 */
import { Effect, Schema } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { now } from "../kernel/Clock.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { settleWithoutVersion } from "./SettleUpload.js";
import { withSpan } from "../kernel/Span.js";

/** Expires one session if it is still open and past its expiry; answers the bytes released. */
export const expireUpload = (workspaceId: string, uploadId: string) =>
  Effect.gen(function* () {
    const session = yield* (yield* UploadsRepository).find(workspaceId, uploadId);
    if (session === null || session.status !== "open") return null;
    if (session.expiresAt.getTime() > (yield* now).getTime()) return null;
    return yield* settleWithoutVersion(session, "expire");
  }).pipe(withSpan("files.expireUpload"));

export const uploadExpiryJob = defineJob({
  kind: "files.upload_expiry",
  payload: Schema.Struct({ workspace_id: Schema.String, upload_id: Schema.String }),
  handle: (payload) => Effect.asVoid(expireUpload(payload.workspace_id, payload.upload_id)),
});
