/** `DELETE /v1/uploads/:id`: the session's owner aborts it; its reservation is released once. */
import { Effect } from "effect";
import { NotFound } from "../kernel/Errors.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { requireMember } from "./Access.js";
import { UploadNotOpen } from "./Errors.js";
import type { FilesServices } from "./Services.js";
import { settleWithoutVersion } from "./SettleUpload.js";
import { withSpan } from "../kernel/Span.js";

/** Aborts an open upload; aborting an aborted one again answers as before (idempotent DELETE). */
export const abortUpload = (input: { readonly userId: string; readonly workspaceId: string; readonly uploadId: string }): Effect.Effect<void, NotFound | UploadNotOpen, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(input.workspaceId, input.userId).pipe(Effect.mapError(() => new NotFound({ resource: "upload" })));
    const session = yield* (yield* UploadsRepository).find(input.workspaceId, input.uploadId);
    if (session === null || session.createdBy !== input.userId) return yield* Effect.fail(new NotFound({ resource: "upload" }));
    if (session.status === "aborted") return;
    if (session.status !== "open") return yield* Effect.fail(new UploadNotOpen({ status: session.status, detail: `the upload is ${session.status}` }));
    if ((yield* settleWithoutVersion(session, "abort")) !== null) return;
    // Settled meanwhile (a complete or the expiry won): answer what it is now.
    const current = (yield* (yield* UploadsRepository).find(input.workspaceId, input.uploadId)) ?? session;
    if (current.status === "aborted") return;
    return yield* Effect.fail(new UploadNotOpen({ status: current.status, detail: `the upload is ${current.status}` }));
  }).pipe(withSpan("files.abortUpload"));
