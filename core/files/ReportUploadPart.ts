/**
 * `PUT /v1/uploads/:id/parts/:part_number {etag}`: the session's owner reports a part the store
 * received, with the `ETag` the store answered to its PUT. With native multipart (S3) this is how
 * the server learns which parts arrived (received parts are kept in our database, never asked of
 * the store: S3-compatible servers differ on ListParts), and the ETags are what completion hands
 * the store. Reporting again replaces the ETag (the part was sent again). With one object per
 * part (the local store) the report is accepted and the store itself is asked. Answers the
 * session as `GET /v1/uploads/:id` does.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Forbidden, NotFound, ValidationFailed } from "../kernel/Errors.js";
import { Transactions } from "../../ports/Transactions.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { requireMember } from "./Access.js";
import { UploadNotOpen } from "./Errors.js";
import type { UploadSessionView } from "./model/UploadSession.js";
import type { FilesServices } from "./Services.js";
import { settleWithoutVersion } from "./SettleUpload.js";
import { lockAndMayStillUpload, mayStillUpload } from "./UploadAccess.js";
import { sessionWithGrants } from "./UploadQueries.js";
import { withSpan } from "../kernel/Span.js";

/** A part the client reports as received. */
export interface ReportedPart {
  readonly partNumber: number;
  readonly etag: string;
}

/** An ETag as a store answers it: 1 to 1024 visible characters (quotes kept as sent). */
const etagPattern = /^[\x21-\x7e]{1,1024}$/;

/** Records `parts` of an open session of the caller; answers nothing (used by report and complete). */
export const recordReportedParts = (
  workspaceId: string,
  sessionId: string,
  parts: ReadonlyArray<ReportedPart>,
): Effect.Effect<void, ValidationFailed, UploadsRepository> =>
  Effect.gen(function* () {
    const uploads = yield* UploadsRepository;
    for (const [i, part] of parts.entries()) {
      if (!etagPattern.test(part.etag)) {
        return yield* Effect.fail(new ValidationFailed({ errors: [{ path: `parts[${i}].etag`, message: "must be the ETag the store answered (1 to 1024 visible characters)" }] }));
      }
      if (!(yield* uploads.recordPart({ workspaceId, sessionId, partNumber: part.partNumber, etag: part.etag }))) {
        return yield* Effect.fail(new ValidationFailed({ errors: [{ path: `parts[${i}].part_number`, message: `the upload has no part ${part.partNumber}` }] }));
      }
    }
  });

/** Reports one received part of an open upload. */
export const reportUploadPart = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly uploadId: string;
  readonly partNumber: number;
  readonly etag: string;
}): Effect.Effect<UploadSessionView, NotFound | Forbidden | ValidationFailed | UploadNotOpen, FilesServices> =>
  Effect.gen(function* () {
    yield* requireMember(input.workspaceId, input.userId).pipe(Effect.mapError(() => new NotFound({ resource: "upload" })));
    const session = yield* (yield* UploadsRepository).find(input.workspaceId, input.uploadId);
    if (session === null || session.createdBy !== input.userId) return yield* Effect.fail(new NotFound({ resource: "upload" }));
    if (session.status !== "open") return yield* Effect.fail(new UploadNotOpen({ status: session.status, detail: `the upload is ${session.status}` }));
    // Past its expiry the session is removed (spec States): settle it as the expiry job would.
    if ((yield* now).getTime() >= session.expiresAt.getTime()) {
      yield* settleWithoutVersion(session, "expire");
      return yield* Effect.fail(new UploadNotOpen({ status: "expired", detail: "the upload expired" }));
    }
    // The answer carries fresh grants: only while the owner may still upload there.
    yield* mayStillUpload(session);
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Checked again under the drive lock, membership held: a revocation committed since is seen.
        yield* lockAndMayStillUpload(session);
        yield* recordReportedParts(input.workspaceId, session.id, [{ partNumber: input.partNumber, etag: input.etag }]);
      }),
    );
    return yield* sessionWithGrants(session);
  }).pipe(withSpan("files.reportUploadPart"));
