/**
 * A task attachment: metadata in the database, bytes in the object store under `objectKey`.
 * Lifecycle: `pending` (upload grant issued) -> `quarantined` (completed: size and checksum
 * verified, scan queued) -> `clean` | `infected` | `scan_failed` (scan retries exhausted).
 * `purging` marks an expired, never-completed upload the trash purge is removing. Only a clean
 * attachment is ever downloadable. A clean attachment also has a thumbnail state: `pending` (the
 * thumbnail job is queued), `ready`, `unsupported` (not an image we decode, or too many pixels) or
 * `failed` (the job's retries ran out); null (`none` on the wire) before the scan is clean or
 * when infected.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { AttachmentId, ProjectId, TaskId, WorkspaceId } from "./Ids.js";

/** Where an attachment is in its lifecycle. */
export const AttachmentStatus = Schema.Literal("pending", "quarantined", "clean", "infected", "scan_failed", "purging");
export type AttachmentStatus = typeof AttachmentStatus.Type;

/** Where an attachment's thumbnail is (stored; `none` on the wire is the absence of a value). */
export const ThumbnailStatus = Schema.Literal("pending", "ready", "unsupported", "failed");
export type ThumbnailStatus = typeof ThumbnailStatus.Type;

/**
 * The envelope versions of an attachment's facts: an attachment has no version of its own, so
 * each lifecycle step has a fixed one (added 1, scanned 2, thumbnail ready 3) and consumers
 * deduplicating by (aggregate, version) see each step once.
 */
export const attachmentFactVersions = { added: 1, scanned: 2, thumbnailReady: 3 } as const;

/** An attachment of one task (composite tenant key: workspace, project, task). */
export const Attachment = Schema.Struct({
  id: AttachmentId,
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  taskId: TaskId,
  uploadedBy: Schema.String,
  filename: Schema.String,
  contentType: Schema.String,
  size: Schema.Int,
  /** Lowercase hex SHA-256 the upload grant binds. */
  sha256: Schema.String,
  objectKey: Schema.String,
  status: AttachmentStatus,
  /** The scanner's signature name when infected, or why the scan failed. */
  scanDetail: Schema.NullOr(Schema.String),
  uploadExpiresAt: Schema.DateFromSelf,
  completedAt: Schema.NullOr(Schema.DateFromSelf),
  scannedAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
  /** The thumbnail state; null until a clean scan decides it. */
  thumbnailStatus: Schema.NullOr(ThumbnailStatus),
  /** Object key of the thumbnail (derived from the attachment, never from user input), once ready. */
  thumbnailKey: Schema.NullOr(Schema.String),
  thumbnailContentType: Schema.NullOr(Schema.String),
  thumbnailWidth: Schema.NullOr(Schema.Int),
  thumbnailHeight: Schema.NullOr(Schema.Int),
  /** Why the thumbnail is unsupported or failed. */
  thumbnailDetail: Schema.NullOr(Schema.String),
});
export type Attachment = typeof Attachment.Type;

/** What a client learns of the thumbnail. */
export const ThumbnailSummary = Schema.Struct({
  status: Schema.Literal("none", ...ThumbnailStatus.literals),
  width: Schema.NullOr(Schema.Int),
  height: Schema.NullOr(Schema.Int),
});

/** An attachment as clients see it: no object keys, the thumbnail summarised. */
export const AttachmentPublic = Schema.Struct({
  ...Struct.omit(
    Attachment.fields,
    "objectKey",
    "thumbnailStatus",
    "thumbnailKey",
    "thumbnailContentType",
    "thumbnailWidth",
    "thumbnailHeight",
    "thumbnailDetail",
  ),
  thumbnail: ThumbnailSummary,
});
export type AttachmentPublic = typeof AttachmentPublic.Type;

/** The public form of an attachment (adds the thumbnail summary; the wire shape drops the rest). */
export const attachmentPublic = (a: Attachment): AttachmentPublic => ({
  ...a,
  thumbnail: { status: a.thumbnailStatus ?? "none", width: a.thumbnailWidth, height: a.thumbnailHeight },
});

/** Wire shape of an attachment. */
export const AttachmentView = wireShape(AttachmentPublic);
