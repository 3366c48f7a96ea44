/**
 * Typed errors of the project module, each with a stable `code` and a `category` the one HTTP
 * error mapper turns into a status (docs/conventions.md, Errors). 409 on a task update means the
 * state forbids the change whatever the version: an illegal workflow move or a task in the
 * trash. A stale version is 412 (kernel VersionMismatch).
 */
import { Data } from "effect";
import { DomainError } from "../kernel/Errors.js";
import type { AttachmentStatus, ThumbnailStatus } from "./model/Attachment.js";

/** The workflow table has no edge from -> to (409 illegal_status_transition). */
export class IllegalStatusTransition extends DomainError("IllegalStatusTransition", "illegal_status_transition", "conflict")<{
  readonly from: string;
  readonly to: string;
}> {}

/** The task is in the trash: restore it before changing or commenting (409 task_deleted). */
export class TaskDeleted extends DomainError("TaskDeleted", "task_deleted", "conflict") {}

/** Removing this member would leave the workspace without an owner (409 last_owner). */
export class LastOwner extends DomainError("LastOwner", "last_owner", "conflict") {}

/** The client_mutation_id was already used by this author on this task for other content (422). */
export class ClientMutationIdReused extends DomainError("ClientMutationIdReused", "client_mutation_id_reused", "unprocessable") {}

/** The order changed between reading and locking; the caller retries with fresh reads (409). */
export class TaskOrderChanged extends DomainError("TaskOrderChanged", "task_order_changed", "conflict") {}

/** The declared size exceeds the attachment limit (413 attachment_too_large). */
export class AttachmentTooLarge extends DomainError("AttachmentTooLarge", "attachment_too_large", "payload_too_large") {}

/** Completion before the bytes were stored (409 upload_incomplete): upload with the grant first. */
export class UploadIncomplete extends DomainError("UploadIncomplete", "upload_incomplete", "conflict") {}

/** The stored object's size or checksum is not the declared one (422 upload_mismatch). */
export class UploadMismatch extends DomainError("UploadMismatch", "upload_mismatch", "unprocessable") {}

/** Completion of an upload whose grant expired and which is being purged (409 upload_expired). */
export class UploadExpired extends DomainError("UploadExpired", "upload_expired", "conflict") {}

/** A new upload grant for an attachment whose upload is over: completed, or its lifetime ended (409 upload_closed). */
export class UploadClosed extends DomainError("UploadClosed", "upload_closed", "conflict") {}

// The three errors below derive their code from their state, so they are tagged errors with a
// `code` getter rather than DomainError's fixed code.

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

/** The export's object was deleted after its retention: ask for a new export (410 export_expired). */
export class ExportExpired extends DomainError("ExportExpired", "export_expired", "gone") {}

/** The export is still running (409 export_not_ready) or failed (409 export_failed). */
export class ExportNotReady extends Data.TaggedError("ExportNotReady")<{ readonly failed: boolean; readonly detail?: string }> {
  readonly category = "conflict" as const;
  get code(): string {
    return this.failed ? "export_failed" : "export_not_ready";
  }
}

/**
 * A direct add of a user who is not a member (409 invitation_required): the user joins by
 * accepting an invitation; `invitations` names the route that makes one.
 */
export class InvitationRequired extends DomainError("InvitationRequired", "invitation_required", "conflict")<{
  readonly problemExtensions: { readonly invitations: string };
}> {}

/** The user already has a pending invitation to the workspace (409 invitation_pending). */
export class InvitationPending extends DomainError("InvitationPending", "invitation_pending", "conflict") {}

/** The user is already a member of the workspace (409 already_member). */
export class AlreadyMember extends DomainError("AlreadyMember", "already_member", "conflict") {}

/** The invitation was already accepted, declined or cancelled (409 invitation_not_pending). */
export class InvitationNotPending extends DomainError("InvitationNotPending", "invitation_not_pending", "conflict") {}

/** The invitation's lifetime is over; ask for a new one (410 invitation_expired). */
export class InvitationExpired extends DomainError("InvitationExpired", "invitation_expired", "gone") {}

/** The owner who invited no longer manages members, so the invitation no longer holds (409 invitation_withdrawn). */
export class InvitationWithdrawn extends DomainError("InvitationWithdrawn", "invitation_withdrawn", "conflict") {}
