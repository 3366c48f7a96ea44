/**
 * Task attachments (spec: "A task has comments and attachments. They inherit task access and
 * access is rechecked on the task"; "Upload URLs are signed, short-lived and constrained by key
 * and size"). The bytes never pass through these commands: a caller asks for an upload grant,
 * sends the bytes to the object store with it, then completes the attachment, which verifies
 * the stored size and checksum, quarantines it and queues the scan job. Only a clean attachment
 * yields a download grant. An attachment the caller may not see answers 404 like an unknown id.
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { Forbidden, NotFound, ValidationFailed, type FieldError, type InvalidCursor } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import { Jobs } from "../../ports/Jobs.js";
import { ObjectStore, type ObjectGrant } from "../../ports/ObjectStore.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { requireRight, requireUser, taskAccess } from "./Access.js";
import {
  AttachmentNotDownloadable,
  AttachmentTooLarge,
  UploadExpired,
  UploadIncomplete,
  UploadMismatch,
} from "./Errors.js";
import { attachmentFactVersions, type Attachment } from "./model/Attachment.js";
import { now } from "../kernel/Clock.js";
import type { TaskServices } from "./CreateTask.js";
import { TaskDeleted, UploadClosed } from "./Errors.js";
import { attachmentCondition } from "./GrantConditions.js";
import { recordTaskFact } from "./TaskFacts.js";
import { scheduleNextTrashPurge } from "./TrashPurge.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";
import { AttachmentId, TaskId } from "./model/Ids.js";

/** Services the attachment commands use. */
export type AttachmentServices = TaskServices | AttachmentsRepository | ObjectStore | Jobs;

/** Limits of attachments. */
export const attachmentPolicy = {
  /** Largest attachment accepted (100 MiB). */
  maxBytes: 100 * 1024 * 1024,
  /** Lifetime of an upload grant. */
  uploadTtlMs: 15 * 60_000,
  /** Lifetime of a download grant. */
  downloadTtlMs: 5 * 60_000,
  /** Attempts of the scan job before the attachment is marked scan_failed. */
  scanAttempts: 5,
} as const;


/** The job kind of the attachment scan; its key is the attachment id. */
export const attachmentScanJobKind = "projects.attachment_scan";

/** What a caller declares about the file it is about to upload. */
export interface NewAttachment {
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  readonly sha256: string;
}

const contentTypePattern = /^[a-z0-9][a-z0-9!#$&^_.+-]{0,126}\/[a-z0-9][a-z0-9!#$&^_.+-]{0,126}$/;

const validate = (input: NewAttachment): Effect.Effect<NewAttachment, ValidationFailed | AttachmentTooLarge> => {
  const errors: FieldError[] = [];
  const filename = input.filename.trim();
  // Names are metadata only (keys are ours), but control characters and separators are refused.
  if (filename.length < 1 || filename.length > 255 || /[\u0000-\u001f\u007f/\\]/.test(filename)) {
    errors.push({ path: "filename", message: "must be 1 to 255 characters without control characters or slashes" });
  }
  const contentType = input.contentType.trim().toLowerCase();
  if (!contentTypePattern.test(contentType)) errors.push({ path: "content_type", message: "must be a media type such as image/png" });
  if (!Number.isSafeInteger(input.size) || input.size < 1) errors.push({ path: "size", message: "must be a positive integer" });
  const sha256 = input.sha256.toLowerCase();
  if (!/^[0-9a-f]{64}$/.test(sha256)) errors.push({ path: "sha256", message: "must be the hex SHA-256 of the bytes" });
  if (errors.length > 0) return Effect.fail(new ValidationFailed({ errors }));
  if (input.size > attachmentPolicy.maxBytes) {
    return Effect.fail(new AttachmentTooLarge({ detail: `Attachments are limited to ${attachmentPolicy.maxBytes} bytes.` }));
  }
  return Effect.succeed({ filename, contentType, size: input.size, sha256 });
};

/** The attachment and the caller's access to its task; NotFound("attachment") when either is hidden. */
export const attachmentAccess = (userId: string, attachmentId: AttachmentId) =>
  Effect.gen(function* () {
    const attachment = yield* (yield* AttachmentsRepository).findAttachment(attachmentId);
    const hidden = new NotFound({ resource: "attachment", detail: "No such attachment." });
    if (attachment === null || attachment.status === "purging") return yield* Effect.fail(hidden);
    const { task, access } = yield* Effect.mapError(taskAccess(userId, attachment.taskId), () => hidden);
    return { attachment, task, access };
  });

/** Registers a pending attachment and answers it with its upload grant (commenter or above). */
export const requestAttachmentUpload = (
  principal: Principal,
  taskId: TaskId,
  input: NewAttachment,
): Effect.Effect<
  { readonly attachment: Attachment; readonly upload: ObjectGrant },
  Forbidden | NotFound | ValidationFailed | AttachmentTooLarge | TaskDeleted,
  AttachmentServices
> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { task, access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "comment");
    const valid = yield* validate(input);
    if (task.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
    const id = AttachmentId.make(yield* (yield* Ids).next);
    const at = yield* now;
    const attachment: Attachment = {
      id,
      workspaceId: task.workspaceId,
      projectId: task.projectId,
      taskId,
      uploadedBy: userId,
      filename: valid.filename,
      contentType: valid.contentType,
      size: valid.size,
      sha256: valid.sha256,
      objectKey: `pm/${task.workspaceId}/attachments/${id}`,
      status: "pending",
      scanDetail: null,
      uploadExpiresAt: new Date(at.getTime() + attachmentPolicy.uploadTtlMs),
      completedAt: null,
      scannedAt: null,
      createdAt: at,
      thumbnailStatus: null,
      thumbnailKey: null,
      thumbnailContentType: null,
      thumbnailWidth: null,
      thumbnailHeight: null,
      thumbnailDetail: null,
    };
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* (yield* AttachmentsRepository).insertAttachment(attachment);
        // Staging needs a purge on the way; scheduling a slot already scheduled is a no-op.
        yield* scheduleNextTrashPurge(at.getTime());
      }),
    );
    const upload = yield* (yield* ObjectStore).grantUpload({
      key: attachment.objectKey,
      size: attachment.size,
      sha256: attachment.sha256,
      contentType: attachment.contentType,
      ttlMs: attachmentPolicy.uploadTtlMs,
    });
    return { attachment, upload };
  }).pipe(withSpan("Projects.requestAttachmentUpload"));

/**
 * A fresh upload grant for an attachment still being uploaded (its uploader only, while it still
 * may attach to the task): what a replay of the upload request answers, since the grant, a bearer
 * capability, is not kept in the idempotency record. The grant ends with the upload's own
 * lifetime (`upload_expires_at`), never later. 404 when the caller no longer sees the task or is
 * not the uploader; 409 upload_closed once the upload was completed or its lifetime ended.
 */
export const reissueAttachmentUpload = (
  principal: Principal,
  attachmentId: AttachmentId,
): Effect.Effect<ObjectGrant, Forbidden | NotFound | UploadClosed, AttachmentServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { attachment, access } = yield* attachmentAccess(userId, attachmentId);
    if (attachment.uploadedBy !== userId) return yield* Effect.fail(new NotFound({ resource: "attachment", detail: "No such attachment." }));
    yield* requireRight(access, "comment");
    const left = attachment.uploadExpiresAt.getTime() - (yield* now).getTime();
    if (attachment.status !== "pending" || left <= 0) {
      return yield* Effect.fail(new UploadClosed({ detail: "The upload is over (completed, or its grant expired); read the attachment, or start a new upload." }));
    }
    return yield* (yield* ObjectStore).grantUpload({
      key: attachment.objectKey,
      size: attachment.size,
      sha256: attachment.sha256,
      contentType: attachment.contentType,
      ttlMs: left,
    });
  }).pipe(withSpan("Projects.reissueAttachmentUpload"));

/**
 * Completes an upload (its uploader only): the stored object must have the declared size and
 * SHA-256; the attachment becomes quarantined, its scan job is queued and the fact
 * `attachment.added` (AttachmentAdded on the project channel, aggregate = the attachment at
 * version 1, its first fact) is recorded, all in one transaction. Completing again answers the
 * attachment as it is (the scan is queued and the fact recorded once).
 */
export const completeAttachment = (
  principal: Principal,
  attachmentId: AttachmentId,
): Effect.Effect<
  Attachment,
  Forbidden | NotFound | TaskDeleted | UploadIncomplete | UploadMismatch | UploadExpired,
  AttachmentServices
> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { attachment, task } = yield* attachmentAccess(userId, attachmentId);
    if (attachment.uploadedBy !== userId) return yield* Effect.fail(new Forbidden({ detail: "Only the uploader can complete an attachment." }));
    if (attachment.status !== "pending") return attachment;
    if (task.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
    const stored = yield* (yield* ObjectStore).stat(attachment.objectKey);
    if (stored === null) return yield* Effect.fail(new UploadIncomplete({ detail: "Nothing was uploaded yet: send the bytes with the upload grant first." }));
    if (stored.size !== attachment.size || stored.sha256 !== attachment.sha256) {
      return yield* Effect.fail(new UploadMismatch({ detail: "The stored object does not have the declared size and SHA-256." }));
    }
    const repo = yield* AttachmentsRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        const moved = yield* repo.transition({ id: attachmentId, from: ["pending"], to: "quarantined", completedAt: at });
        const current = yield* repo.findAttachment(attachmentId);
        if (current === null || current.status === "purging") {
          return yield* Effect.fail(new UploadExpired({ detail: "The upload expired and is being removed; start a new one." }));
        }
        if (moved) {
          yield* (yield* Jobs).schedule({
            kind: attachmentScanJobKind,
            key: attachmentId,
            payload: { attachment_id: attachmentId },
            runAt: at,
            maxAttempts: attachmentPolicy.scanAttempts,
          });
          // The task as it is now (the fact carries its view); it exists: attachments reference it.
          const taskNow = (yield* (yield* TasksRepository).findTask(current.taskId)) ?? task;
          yield* recordTaskFact({
            task: taskNow,
            actorId: userId,
            kind: "attachment.added",
            aggregate: { id: current.id, version: attachmentFactVersions.added },
            data: {
              attachment_id: current.id,
              filename: current.filename,
              content_type: current.contentType,
              size: current.size,
              status: current.status,
            },
          });
        }
        return current;
      }),
    );
  }).pipe(withSpan("Projects.completeAttachment"));

/** Reads one attachment the caller can see. */
export const getAttachment = (principal: Principal, attachmentId: AttachmentId): Effect.Effect<Attachment, Forbidden | NotFound, AttachmentServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { attachment, access } = yield* attachmentAccess(userId, attachmentId);
    yield* requireRight(access, "read");
    return attachment;
  }).pipe(withSpan("Projects.getAttachment"));

/** Attachments of a visible task, oldest first (every status, so uploaders see progress). */
export const listAttachments = (
  principal: Principal,
  taskId: TaskId,
  query: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<Attachment>, Forbidden | NotFound | InvalidCursor, AttachmentServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "read");
    const after = query.cursor === undefined ? undefined : yield* decodeCursor(IdCursorKey, query.cursor);
    const rows = yield* (yield* AttachmentsRepository).listAttachments({ taskId, afterId: after?.[0], limit: query.limit + 1 });
    return pageFrom(rows, query.limit, (a) => [a.id]);
  }).pipe(withSpan("Projects.listAttachments"));

/**
 * The attachment, after a fresh read-access check, when it is clean; otherwise 409 with its
 * status's code (`use` completes the detail: "can be downloaded", "has a thumbnail").
 */
export const readableCleanAttachment = (
  principal: Principal,
  attachmentId: AttachmentId,
  use: string,
): Effect.Effect<Attachment, Forbidden | NotFound | AttachmentNotDownloadable, AttachmentServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { attachment, access } = yield* attachmentAccess(userId, attachmentId);
    yield* requireRight(access, "read");
    if (attachment.status !== "clean") {
      return yield* Effect.fail(
        new AttachmentNotDownloadable({ status: attachment.status, detail: `The attachment is ${attachment.status}; only a clean attachment ${use}.` }),
      );
    }
    return attachment;
  });

/** A short-lived download grant, issued after a fresh access check and only for a clean attachment. */
export const downloadAttachment = (
  principal: Principal,
  attachmentId: AttachmentId,
): Effect.Effect<ObjectGrant, Forbidden | NotFound | AttachmentNotDownloadable, AttachmentServices> =>
  Effect.gen(function* () {
    const attachment = yield* readableCleanAttachment(principal, attachmentId, "can be downloaded");
    return yield* (yield* ObjectStore).grantDownload({
      key: attachment.objectKey,
      contentType: attachment.contentType,
      filename: attachment.filename,
      ttlMs: attachmentPolicy.downloadTtlMs,
      // Served only while the holder still reads the task and the attachment is clean.
      condition: attachmentCondition(attachment.id, yield* requireUser(principal)),
    });
  }).pipe(withSpan("Projects.downloadAttachment"));
