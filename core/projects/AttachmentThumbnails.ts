/**
 * Attachment thumbnails (spec rule 10: "attachment scan and thumbnail" are background work), run
 * as a durable job (kind `projects.attachment_thumbnail`, keyed by the attachment) queued by a
 * clean scan. The job reads the object, asks the Thumbnailer, writes the thumbnail as its own
 * object under a key derived from the attachment, and in one transaction settles the pending
 * thumbnail (a conditional update) and records `attachment.thumbnail_ready`. A second run finds
 * nothing pending and does nothing. Input the thumbnailer cannot decode fails the job (retried
 * with backoff) and is recorded `failed` on the last attempt; an image over the pixel limit or
 * anything that is not an image is recorded `unsupported` at once.
 */
import { Effect, Schema, Stream } from "effect";
import type { Forbidden, NotFound } from "../kernel/Errors.js";
import type { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { ObjectStore, type ObjectGrant } from "../../ports/ObjectStore.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { Thumbnailer, type ThumbnailInputRejected } from "../../ports/Thumbnailer.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { AttachmentNotDownloadable, ThumbnailNotAvailable } from "./Errors.js";
import { attachmentFactVersions, type Attachment, type ThumbnailStatus } from "./model/Attachment.js";
import { attachmentPolicy, readableCleanAttachment, type AttachmentServices } from "./Attachments.js";
import { requireUser } from "./Access.js";
import { attachmentCondition } from "./GrantConditions.js";
import { recordTaskFact } from "./TaskFacts.js";
import { withSpan } from "../kernel/Span.js";
import { AttachmentId } from "./model/Ids.js";

/** The job kind of attachment thumbnails; its key is the attachment id. */
export const attachmentThumbnailJobKind = "projects.attachment_thumbnail";

/** Limits of thumbnail generation. */
export const thumbnailPolicy = {
  /** Attempts of the thumbnail job before an undecodable image is recorded `failed`. */
  attempts: 4,
  /** Largest source object read into memory for a thumbnail (bigger: `unsupported`). */
  maxSourceBytes: 25 * 1024 * 1024,
} as const;


/** Actor of the facts the scan and thumbnail jobs record. */
export const attachmentScanActor = "system:attachment-scan";
export const attachmentThumbnailActor = "system:attachment-thumbnail";

/**
 * The thumbnail state a clean scan starts: `pending` (queue the job) for a declared image type,
 * `unsupported` for anything else (the job would only confirm it). The thumbnailer still checks
 * the bytes, so a file merely declared as an image is refused there.
 */
export const initialThumbnailState = (attachment: Attachment): { readonly status: ThumbnailStatus; readonly detail: string | null } =>
  attachment.contentType.startsWith("image/")
    ? { status: "pending", detail: null }
    : { status: "unsupported", detail: `${attachment.contentType} is not an image` };

/** Schedules the thumbnail job of `attachmentId` (call in the transaction that made it pending). */
export const scheduleThumbnail = (attachmentId: AttachmentId, at: Date): Effect.Effect<void, never, Jobs> =>
  Effect.asVoid(attachmentThumbnailJob.schedule({ attachment_id: attachmentId }, { runAt: at, key: attachmentId, maxAttempts: thumbnailPolicy.attempts }));

/** What one thumbnail run concluded (for logs and tests). */
export type ThumbnailOutcome = Exclude<ThumbnailStatus, "pending"> | "skipped";

/** Object key of an attachment's thumbnail: ours alone (workspace and attachment ids), never user input. */
export const thumbnailObjectKey = (attachment: Attachment): string => `pm/${attachment.workspaceId}/thumbnails/${attachment.id}`;

/** Reads at most `limit` bytes of `content`; null when it is longer. */
const readBounded = (content: Stream.Stream<Uint8Array>, limit: number): Effect.Effect<Uint8Array | null> =>
  Effect.gen(function* () {
    const chunks: Uint8Array[] = [];
    let total = 0;
    yield* Stream.runForEachWhile(content, (chunk) =>
      Effect.sync(() => {
        total += chunk.length;
        if (total > limit) return false;
        chunks.push(chunk);
        return true;
      }),
    );
    if (total > limit) return null;
    const bytes = new Uint8Array(total);
    let offset = 0;
    for (const chunk of chunks) {
      bytes.set(chunk, offset);
      offset += chunk.length;
    }
    return bytes;
  });

/** Services the thumbnail job uses. */
export type ThumbnailJobServices = AttachmentsRepository | ObjectStore | Thumbnailer | Transactions | TasksRepository | Outbox | Ids;

/**
 * Makes the thumbnail of one clean attachment whose thumbnail is pending. `attempt` /
 * `maxAttempts` come from the job: an undecodable image fails the run (retried) until the last
 * attempt, which records `failed`.
 */
export const generateThumbnail = (
  attachmentId: AttachmentId,
  attempt: { readonly attempt: number; readonly maxAttempts: number },
): Effect.Effect<ThumbnailOutcome, ThumbnailInputRejected, ThumbnailJobServices> =>
  Effect.gen(function* () {
    const repo = yield* AttachmentsRepository;
    const attachment = yield* repo.findAttachment(attachmentId);
    if (attachment === null || attachment.status !== "clean" || attachment.thumbnailStatus !== "pending") return "skipped" as const;
    const settle = (status: "unsupported" | "failed", detail: string) =>
      Effect.map(repo.settleThumbnail({ id: attachmentId, status, detail: detail.slice(0, 500) }), (moved) => (moved ? status : ("skipped" as const)));
    if (attachment.size > thumbnailPolicy.maxSourceBytes) return yield* settle("unsupported", "the image is too large for a thumbnail");
    const store = yield* ObjectStore;
    const content = yield* store.read(attachment.objectKey);
    if (content === null) return yield* settle("failed", "the stored object is missing");
    const bytes = yield* readBounded(content, thumbnailPolicy.maxSourceBytes);
    if (bytes === null) return yield* settle("unsupported", "the image is too large for a thumbnail");
    const answer = yield* Effect.either((yield* Thumbnailer).thumbnail({ bytes, contentType: attachment.contentType }));
    if (answer._tag === "Left") {
      const error = answer.left;
      // A pixel bomb stays a bomb: recorded at once. Corrupt data is retried (it may be a bad read).
      if (error.reason === "too_many_pixels") return yield* settle("unsupported", "the image has too many pixels");
      if (attempt.attempt < attempt.maxAttempts) return yield* Effect.fail(error);
      return yield* settle("failed", error.detail ?? "the image could not be decoded");
    }
    const result = answer.right;
    if (result._tag === "Unsupported") return yield* settle("unsupported", result.reason);
    const { thumbnail } = result;
    const key = thumbnailObjectKey(attachment);
    // Written before the settling transaction; a retry rewrites the same key with the same bytes.
    yield* store.put(key, Stream.make(thumbnail.bytes));
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const moved = yield* repo.settleThumbnail({
          id: attachmentId,
          status: "ready",
          objectKey: key,
          contentType: thumbnail.contentType,
          width: thumbnail.width,
          height: thumbnail.height,
        });
        if (!moved) return "skipped" as const;
        const task = yield* (yield* TasksRepository).findTask(attachment.taskId);
        if (task !== null) {
          yield* recordTaskFact({
            task,
            actorId: attachmentThumbnailActor,
            kind: "attachment.thumbnail_ready",
            aggregate: { id: attachment.id, version: attachmentFactVersions.thumbnailReady },
            data: { attachment_id: attachment.id, change: "thumbnail_ready", thumbnail: { width: thumbnail.width, height: thumbnail.height } },
          });
        }
        return "ready" as const;
      }),
    );
  }).pipe(withSpan("Projects.generateThumbnail"));

/** The thumbnail as a job: payload `{ attachment_id }`. */
export const attachmentThumbnailJob = defineJob({
  kind: attachmentThumbnailJobKind,
  payload: Schema.Struct({ attachment_id: AttachmentId }),
  handle: (payload, job) =>
    Effect.asVoid(
      generateThumbnail(payload.attachment_id, {
        // The claim already counted this attempt.
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
      }),
    ),
});

const thumbnailFilename = (contentType: string): string => (contentType === "image/webp" ? "thumbnail.webp" : contentType === "image/png" ? "thumbnail.png" : "thumbnail");

/**
 * A short-lived download grant for an attachment's thumbnail: the same fresh access check and
 * 404s as the attachment's download; an attachment that is not clean has no thumbnail (409 with
 * the download's code), a clean one without a ready thumbnail answers 409 `thumbnail_*`.
 */
export const downloadThumbnail = (
  principal: Principal,
  attachmentId: AttachmentId,
): Effect.Effect<ObjectGrant, Forbidden | NotFound | AttachmentNotDownloadable | ThumbnailNotAvailable, AttachmentServices> =>
  Effect.gen(function* () {
    const attachment = yield* readableCleanAttachment(principal, attachmentId, "has a thumbnail");
    const key = attachment.thumbnailKey;
    if (attachment.thumbnailStatus !== "ready" || key === null) {
      const status = attachment.thumbnailStatus ?? "none";
      return yield* Effect.fail(new ThumbnailNotAvailable({ status, detail: `The thumbnail is ${status}.` }));
    }
    const contentType = attachment.thumbnailContentType ?? "application/octet-stream";
    return yield* (yield* ObjectStore).grantDownload({
      key,
      contentType,
      filename: thumbnailFilename(contentType),
      ttlMs: attachmentPolicy.downloadTtlMs,
      condition: attachmentCondition(attachment.id, yield* requireUser(principal)),
    });
  }).pipe(withSpan("Projects.downloadThumbnail"));
