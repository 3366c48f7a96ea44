/**
 * `GET /v1/uploads/:id` (resume): the session's owner learns which parts are already stored
 * (`receivedParts`) and gets fresh grants for the missing ones, so a client that lost its
 * connection sends only what is missing. With one object per part (the local store) the store is
 * asked; with native multipart (S3) a part is received once the client reported its ETag
 * (ReportUploadPart) — recorded in our database, never asked of the store (no ListParts). A
 * session past its expiry is settled as expired (as the expiry job would) and answered so, without
 * grants.
 */
import { Effect } from "effect";
import { Forbidden, NotFound } from "../kernel/Errors.js";
import { now } from "../kernel/Clock.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { requireMember } from "./Access.js";
import { partGrants } from "./CreateUpload.js";
import { settleWithoutVersion } from "./SettleUpload.js";
import { mayStillUpload } from "./UploadAccess.js";
import { uploadSessionView, type UploadPart, type UploadSession, type UploadSessionView } from "./model/UploadSession.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** The session with its received parts and fresh grants for the missing ones (none once settled). */
export const getUpload = (input: { readonly userId: string; readonly workspaceId: string; readonly uploadId: string }): Effect.Effect<UploadSessionView, NotFound | Forbidden, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(input.workspaceId, input.userId).pipe(Effect.mapError(() => new NotFound({ resource: "upload" })));
    const uploads = yield* UploadsRepository;
    const session = yield* uploads.find(input.workspaceId, input.uploadId);
    if (session === null || session.createdBy !== input.userId) return yield* Effect.fail(new NotFound({ resource: "upload" }));
    // Past its expiry the session is removed (spec States), whether or not the expiry job ran:
    // settle it as the job would and answer it expired, without grants.
    if (session.status === "open" && (yield* now).getTime() >= session.expiresAt.getTime()) {
      yield* settleWithoutVersion(session, "expire");
      return yield* sessionWithGrants((yield* uploads.find(input.workspaceId, session.id)) ?? session);
    }
    // Fresh grants are write capabilities: only while the owner may still upload there.
    if (session.status === "open") yield* mayStillUpload(session);
    return yield* sessionWithGrants(session);
  }).pipe(withSpan("files.getUpload"));

/** Which parts of `session` the store holds, each true or false, in part order. */
const receivedParts = (session: UploadSession, parts: ReadonlyArray<UploadPart>): Effect.Effect<ReadonlyArray<boolean>, never, ObjectStore> =>
  session.storeUploadId !== null
    ? Effect.succeed(parts.map((p) => p.etag !== null))
    : Effect.flatMap(ObjectStore, (store) =>
        Effect.forEach(parts, (p) => Effect.map(store.stat(p.objectKey), (s) => s !== null && s.size === p.sizeBytes && s.sha256 === p.sha256)),
      );

/** The view of `session`: its received parts and, while open, fresh grants for the missing ones. */
export const sessionWithGrants = (session: UploadSession): Effect.Effect<UploadSessionView, never, UploadsRepository | ObjectStore> =>
  Effect.gen(function* () {
    const parts = yield* (yield* UploadsRepository).parts(session.workspaceId, session.id);
    const stored = yield* receivedParts(session, parts);
    const received = parts.filter((_, i) => stored[i]).map((p) => p.partNumber);
    const missing = session.status === "open" ? parts.filter((_, i) => !stored[i]) : [];
    const grants = yield* partGrants(session, missing);
    return uploadSessionView(session, grants, received);
  });
