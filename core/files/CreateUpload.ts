/**
 * `POST /v1/uploads` (spec: "Reserve quota and create a multipart grant"; Idempotency-Key
 * required at the route). An editor of the parent folder (any member at the root), or of the
 * file for a new version, opens a session: the bytes are reserved against the drive's quota in
 * the same transaction, under the drive row's lock, so parallel creations never pass the quota
 * (also a database CHECK). Each part gets a grant bound to its object key, PUT, its exact size
 * and SHA-256, the session's expiry and the session itself (it stores nothing once the session is
 * settled); an expiry job is scheduled with the session.
 *
 * Part checksums: the ObjectStore binds every upload grant to a SHA-256, so a file of more than
 * one part declares each part's SHA-256 (`partSha256`); a one-part file's part checksum is the
 * file's (docs/decisions.md, File storage).
 *
 * A store with native multipart (S3) gets one multipart upload per session, begun before the
 * transaction (and aborted if the session is not created): each part's grant is the store's
 * presigned UploadPart, and the store assembles the parts at completion. A store without it
 * (the local store) stores each part as its own object.
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { Forbidden, NotFound, ValidationFailed } from "../kernel/Errors.js";
import { reserve } from "../kernel/QuotaReservation.js";
import { Ids } from "../../ports/Ids.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { UploadsRepository } from "../../ports/files/UploadsRepository.js";
import { requireAccess } from "./Access.js";
import { requireAccessUnderLock } from "./NamespaceLock.js";
import { FileQuotaExceeded, FileTooLarge, NodeTrashed, NotAFile, type InvalidName, type NameTaken, type NotAFolder, type TreeTooDeep } from "./Errors.js";
import { uploadExpiryJob } from "./ExpireUpload.js";
import { uploadCondition } from "./GrantConditions.js";
import { NodeId, UploadSessionId, WorkspaceId } from "./model/Ids.js";
import { quotaStateOf } from "./model/Drive.js";
import { uploadSessionView, type PartGrant, type UploadPart, type UploadSession, type UploadSessionView } from "./model/UploadSession.js";
import { validName } from "./Names.js";
import { assembledKey, partKey } from "./ObjectKeys.js";
import { requireFreeName } from "./CreateFolder.js";
import { requireRoomUnder } from "./TreeDepth.js";
import type { FilesServices } from "./Services.js";
import { isMediaType } from "./ContentTypes.js";
import { withSpan } from "../kernel/Span.js";

const sha256Pattern = /^[0-9a-f]{64}$/;

/** What the client asks for. */
export interface NewUpload {
  readonly userId: string;
  readonly workspaceId: string;
  readonly parentId: string;
  readonly name: string;
  readonly sizeBytes: number;
  readonly sha256: string;
  readonly contentType: string;
  /** Set for a new version of an existing file. */
  readonly nodeId: string | null;
  /** The SHA-256 of each part, in order; required when the file has more than one part. */
  readonly partSha256: ReadonlyArray<string> | null;
}

const invalid = (path: string, message: string) => new ValidationFailed({ errors: [{ path, message }] });

/** Fresh grants for the given parts of a session. */
export const partGrants = (session: UploadSession, parts: ReadonlyArray<UploadPart>): Effect.Effect<ReadonlyArray<PartGrant>, never, ObjectStore> =>
  Effect.gen(function* () {
    const store = yield* ObjectStore;
    const ttlMs = Math.max(1, session.expiresAt.getTime() - (yield* now).getTime());
    const uploadId = session.storeUploadId;
    if (uploadId !== null && store.multipart === undefined) {
      return yield* Effect.dieMessage(`upload ${session.id} is a multipart upload, but the configured ObjectStore has no multipart`);
    }
    const key = assembledKey(session.workspaceId, session.id);
    // A part grant stores bytes only while its session is open (GrantConditions.ts); a native
    // multipart part needs no condition: the store refuses parts of a completed or aborted upload.
    const condition = uploadCondition(session);
    return yield* Effect.forEach(parts, (part) =>
      Effect.map(
        uploadId !== null && store.multipart !== undefined
          ? store.multipart.grantPart({ key, uploadId, partNumber: part.partNumber, size: part.sizeBytes, ttlMs })
          : store.grantUpload({ key: part.objectKey, size: part.sizeBytes, sha256: part.sha256, contentType: session.contentType, ttlMs, condition }),
        (grant): PartGrant => ({ partNumber: part.partNumber, url: grant.url, headers: grant.headers, expiresAt: grant.expiresAt }),
      ),
    );
  });

/** Opens an upload session with its quota reservation and part grants. */
export const createUpload = (
  input: NewUpload,
): Effect.Effect<
  UploadSessionView,
  NotFound | Forbidden | ValidationFailed | InvalidName | NameTaken | NotAFolder | NotAFile | NodeTrashed | FileQuotaExceeded | FileTooLarge | TreeTooDeep,
  FilesServices
> =>
  Effect.gen(function* () {
    const settings = yield* FilesSettings;
    const name = yield* validName(input.name);
    if (!Number.isSafeInteger(input.sizeBytes) || input.sizeBytes < 0) return yield* Effect.fail(invalid("size_bytes", "must be a non-negative integer"));
    if (!sha256Pattern.test(input.sha256)) return yield* Effect.fail(invalid("sha256", "must be a SHA-256 in lowercase hex"));
    // It travels in the part grants' and the downloads' Content-Type header.
    if (!isMediaType(input.contentType)) return yield* Effect.fail(invalid("content_type", "must be a media type such as text/plain or text/plain; charset=utf-8"));
    if (input.sizeBytes > settings.maxFileBytes) {
      return yield* Effect.fail(new FileTooLarge({ maxBytes: settings.maxFileBytes, detail: `files are limited to ${settings.maxFileBytes} bytes` }));
    }
    const partCount = Math.max(1, Math.ceil(input.sizeBytes / settings.partSizeBytes));
    const partSha256 = partCount === 1 ? [input.sha256] : input.partSha256;
    if (partSha256 === null || partSha256.length !== partCount || !partSha256.every((h) => sha256Pattern.test(h))) {
      return yield* Effect.fail(invalid("part_sha256", `a file of ${partCount} parts declares ${partCount} part checksums (lowercase hex SHA-256)`));
    }
    // The caller edits the target: the parent folder for a new file, the file itself for a new version.
    if (input.nodeId === null) {
      const parent = yield* requireAccess(input.workspaceId, input.userId, input.parentId, "create_child");
      // Checked now, from the ancestors the access check read, so the client learns early; checked
      // again under the drive lock when the upload completes (CompleteUpload.ts).
      yield* requireRoomUnder(parent.ancestors.length, 0);
    } else yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "edit");
    // No ensureDrive: the node just checked is in the workspace, so its drive exists (fs_nodes
    // references fs_drives, and a drive is never deleted); the transaction below locks it.

    const id = UploadSessionId.make(yield* (yield* Ids).next);
    const ws = WorkspaceId.make(input.workspaceId);
    const at = yield* now;
    const parts: ReadonlyArray<UploadPart> = partSha256.map((sha256, i) => ({
      sessionId: id,
      workspaceId: ws,
      partNumber: i + 1,
      sizeBytes: i < partCount - 1 ? settings.partSizeBytes : input.sizeBytes - settings.partSizeBytes * (partCount - 1),
      sha256,
      objectKey: partKey(input.workspaceId, id, i + 1),
      etag: null,
    }));
    // A store with native multipart assembles the parts itself: one multipart upload per session.
    const multipart = (yield* ObjectStore).multipart;
    const storeUploadId = multipart === undefined ? null : yield* multipart.begin({ key: assembledKey(input.workspaceId, id), contentType: input.contentType });

    const session = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const drives = yield* DriveRepository;
        const drive = yield* drives.lock(input.workspaceId);
        if (drive === null) return yield* Effect.fail(new NotFound({ resource: "drive" }));
        let parentId = NodeId.make(input.parentId);
        // The caller's access again under the lock: a revocation committed since the check above is seen.
        if (input.nodeId !== null) {
          const { node: file } = yield* requireAccessUnderLock(input.workspaceId, input.userId, input.nodeId, "edit");
          if (file.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: file.id }));
          if (file.trashedAt !== null || file.parentId === null) return yield* Effect.fail(new NodeTrashed({ nodeId: file.id }));
          parentId = file.parentId;
        } else {
          const { node: parent } = yield* requireAccessUnderLock(input.workspaceId, input.userId, input.parentId, "create_child");
          // Checked now so the client learns early; checked again when the upload completes.
          yield* requireFreeName(input.workspaceId, parent, name, input.userId);
        }
        // The kernel's reservation rule decides against the counter read under the lock.
        yield* reserve(quotaStateOf(drive), id, input.sizeBytes).pipe(
          Effect.catchTags({
            QuotaExceeded: (e) =>
              Effect.fail(
                new FileQuotaExceeded({ quotaBytes: e.limit, usedBytes: e.used, reservedBytes: e.reserved, requestedBytes: e.requested, detail: e.detail ?? "over quota" }),
              ),
            Conflict: (e) => Effect.die(e),
          }),
        );
        yield* drives.adjust(input.workspaceId, { reserved: input.sizeBytes, used: 0 }, at);
        const session: UploadSession = {
          id,
          workspaceId: ws,
          parentId,
          nodeId: input.nodeId === null ? null : NodeId.make(input.nodeId),
          name,
          sizeBytes: input.sizeBytes,
          sha256: input.sha256,
          contentType: input.contentType,
          partSizeBytes: settings.partSizeBytes,
          partCount,
          status: "open",
          reservedBytes: input.sizeBytes,
          versionId: null,
          storeUploadId,
          createdBy: input.userId,
          expiresAt: new Date(at.getTime() + settings.uploadTtlMs),
          createdAt: at,
          updatedAt: at,
        };
        yield* (yield* UploadsRepository).insert(session, parts);
        yield* uploadExpiryJob.schedule({ workspace_id: input.workspaceId, upload_id: id }, { runAt: session.expiresAt, key: id });
        return session;
      }),
    ).pipe(
      // No session, no multipart upload: the store's upload is discarded (quota exceeded, name taken, ...).
      Effect.onError(() =>
        multipart === undefined || storeUploadId === null ? Effect.void : multipart.abort({ key: assembledKey(input.workspaceId, id), uploadId: storeUploadId }),
      ),
    );
    const grants = yield* partGrants(session, parts);
    return uploadSessionView(session, grants, []);
  }).pipe(withSpan("files.createUpload"));
