/** Typed errors of task attachments (stable `code`, `category` for the one HTTP mapper). */
import { Data } from "effect";
import type { AttachmentStatus, ThumbnailStatus } from "./model/Attachment.js";

const notReadyCodes: Readonly<Record<AttachmentStatus, string>> = {
  pending: "attachment_not_uploaded",
  quarantined: "attachment_quarantined",
  infected: "attachment_infected",
  scan_failed: "attachment_scan_failed",
  purging: "attachment_not_uploaded",
  clean: "attachment_not_ready",
};

/**
 * The attachment cannot be downloaded in its state (409): `attachment_quarantined` until the scan
 * is clean, `attachment_infected`, `attachment_scan_failed`, `attachment_not_uploaded`.
 */
export class AttachmentNotDownloadable extends Data.TaggedError("AttachmentNotDownloadable")<{
  readonly status: AttachmentStatus;
  readonly detail?: string;
}> {
  readonly category = "conflict" as const;
  get code(): string {
    return notReadyCodes[this.status];
  }
}

/** The declared size exceeds the attachment limit (413 attachment_too_large). */
export class AttachmentTooLarge extends Data.TaggedError("AttachmentTooLarge")<{ readonly detail?: string }> {
  readonly code = "attachment_too_large";
  readonly category = "payload_too_large" as const;
}

/** Completion before the bytes were stored (409 upload_incomplete): upload with the grant first. */
export class UploadIncomplete extends Data.TaggedError("UploadIncomplete")<{ readonly detail?: string }> {
  readonly code = "upload_incomplete";
  readonly category = "conflict" as const;
}

/** The stored object's size or checksum is not the declared one (422 upload_mismatch). */
export class UploadMismatch extends Data.TaggedError("UploadMismatch")<{ readonly detail?: string }> {
  readonly code = "upload_mismatch";
  readonly category = "unprocessable" as const;
}

/** Completion of an upload whose grant expired and which is being purged (409 upload_expired). */
export class UploadExpired extends Data.TaggedError("UploadExpired")<{ readonly detail?: string }> {
  readonly code = "upload_expired";
  readonly category = "conflict" as const;
}

const thumbnailCodes: Readonly<Record<ThumbnailStatus | "none", string>> = {
  none: "thumbnail_not_ready",
  pending: "thumbnail_not_ready",
  ready: "thumbnail_not_ready",
  unsupported: "thumbnail_unsupported",
  failed: "thumbnail_failed",
};

/**
 * A clean attachment has no thumbnail to download (409): `thumbnail_not_ready` while the job is
 * pending, `thumbnail_unsupported` (not an image we decode), `thumbnail_failed` (retries ran out).
 */
export class ThumbnailNotAvailable extends Data.TaggedError("ThumbnailNotAvailable")<{
  readonly status: ThumbnailStatus | "none";
  readonly detail?: string;
}> {
  readonly category = "conflict" as const;
  get code(): string {
    return thumbnailCodes[this.status];
  }
}
