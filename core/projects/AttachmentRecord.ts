/**
 * A task attachment: metadata in the database, bytes in the object store under `objectKey`.
 * Lifecycle: `pending` (upload grant issued) -> `quarantined` (completed: size and checksum
 * verified, scan queued) -> `clean` | `infected` | `scan_failed` (scan retries exhausted).
 * `purging` marks an expired, never-completed upload the trash purge is removing. Only a clean
 * attachment is ever downloadable. A clean attachment also has a thumbnail state: `pending` (the
 * thumbnail job is queued), `ready`, `unsupported` (not an image we decode, or too many pixels) or
 * `failed` (the job's retries ran out); `none` before the scan is clean or when infected.
 */
import { Schema } from "effect";

/** Where an attachment is in its lifecycle. */
export const AttachmentStatus = Schema.Literal("pending", "quarantined", "clean", "infected", "scan_failed", "purging");
export type AttachmentStatus = typeof AttachmentStatus.Type;

/** Where an attachment's thumbnail is (stored; `none` is the absence of a row value). */
export const ThumbnailStatus = Schema.Literal("pending", "ready", "unsupported", "failed");
export type ThumbnailStatus = typeof ThumbnailStatus.Type;

/**
 * The envelope versions of an attachment's facts: an attachment has no version of its own, so
 * each lifecycle step has a fixed one (added 1, scanned 2, thumbnail ready 3) and consumers
 * deduplicating by (aggregate, version) see each step once.
 */
export const attachmentFactVersions = { added: 1, scanned: 2, thumbnailReady: 3 } as const;

/** An attachment's thumbnail state; the key and size are set once it is ready. */
export interface AttachmentThumbnail {
  readonly status: ThumbnailStatus;
  /** Object key of the thumbnail (derived from the attachment, never from user input). */
  readonly objectKey: string | null;
  readonly contentType: string | null;
  readonly width: number | null;
  readonly height: number | null;
  /** Why it is unsupported or failed. */
  readonly detail: string | null;
}

/** An attachment of one task (composite tenant key: workspace, project, task). */
export interface Attachment {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly taskId: string;
  readonly uploadedBy: string;
  readonly filename: string;
  readonly contentType: string;
  readonly size: number;
  /** Lowercase hex SHA-256 the upload grant binds. */
  readonly sha256: string;
  readonly objectKey: string;
  readonly status: AttachmentStatus;
  /** The scanner's signature name when infected, or why the scan failed. */
  readonly scanDetail: string | null;
  readonly uploadExpiresAt: Date;
  readonly completedAt: Date | null;
  readonly scannedAt: Date | null;
  readonly createdAt: Date;
  /** The thumbnail state; absent (or null) until a clean scan decides it. */
  readonly thumbnail?: AttachmentThumbnail | null;
}

/** Wire shape of an attachment (the object key stays internal). */
export const AttachmentView = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  project_id: Schema.String,
  task_id: Schema.String,
  uploaded_by: Schema.String,
  filename: Schema.String,
  content_type: Schema.String,
  size: Schema.Int,
  sha256: Schema.String,
  status: AttachmentStatus,
  scan_detail: Schema.NullOr(Schema.String),
  upload_expires_at: Schema.String,
  completed_at: Schema.NullOr(Schema.String),
  scanned_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  thumbnail: Schema.Struct({
    status: Schema.Literal("none", "pending", "ready", "unsupported", "failed"),
    width: Schema.NullOr(Schema.Int),
    height: Schema.NullOr(Schema.Int),
  }),
});
export type AttachmentView = typeof AttachmentView.Type;

const isoOrNull = (date: Date | null): string | null => (date === null ? null : date.toISOString());

/** Wire shape of an attachment. */
export const attachmentView = (a: Attachment): AttachmentView => ({
  id: a.id,
  workspace_id: a.workspaceId,
  project_id: a.projectId,
  task_id: a.taskId,
  uploaded_by: a.uploadedBy,
  filename: a.filename,
  content_type: a.contentType,
  size: a.size,
  sha256: a.sha256,
  status: a.status,
  scan_detail: a.scanDetail,
  upload_expires_at: a.uploadExpiresAt.toISOString(),
  completed_at: isoOrNull(a.completedAt),
  scanned_at: isoOrNull(a.scannedAt),
  created_at: a.createdAt.toISOString(),
  thumbnail: {
    status: a.thumbnail?.status ?? "none",
    width: a.thumbnail?.width ?? null,
    height: a.thumbnail?.height ?? null,
  },
});

/** Wire shape of a grant: where and how to send the request. */
export const TransferGrantView = Schema.Struct({
  url: Schema.String,
  method: Schema.Literal("PUT", "GET"),
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  expires_at: Schema.String,
});
export type TransferGrantView = typeof TransferGrantView.Type;
