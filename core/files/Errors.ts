/**
 * The file storage module's errors (docs/conventions.md, Errors). Statuses follow the
 * specification's table: 409 for name and move conflicts and conflicting completes, 413 for
 * quota and size, 422 for a stored object that does not match, 410 for an expired cursor, 423
 * for a version that may not be downloaded.
 */
import { DomainError } from "../kernel/Errors.js";

/** A name already used by an active sibling (409 name_taken). */
export class NameTaken extends DomainError("NameTaken", "name_taken", "conflict")<{ readonly name: string }> {}

/** A move that would make a node its own descendant (409 move_into_descendant). */
export class MoveIntoDescendant extends DomainError("MoveIntoDescendant", "move_into_descendant", "conflict")<{
  readonly nodeId: string;
  readonly parentId: string;
}> {}

/** The tree changed under a move in a way the move cannot be applied to (409 concurrent_move). */
export class ConcurrentMove extends DomainError("ConcurrentMove", "concurrent_move", "conflict")<{ readonly nodeId: string }> {}

/** Reserving the upload would pass the drive's quota (413 quota_exceeded). */
export class FileQuotaExceeded extends DomainError("FileQuotaExceeded", "quota_exceeded", "payload_too_large")<{
  readonly quotaBytes: number;
  readonly usedBytes: number;
  readonly reservedBytes: number;
  readonly requestedBytes: number;
}> {}

/** A file above the configured size limit (413 file_too_large). */
export class FileTooLarge extends DomainError("FileTooLarge", "file_too_large", "payload_too_large")<{
  readonly maxBytes: number;
}> {}

/** The stored bytes' SHA-256 differs from the declared one (422 checksum_mismatch); nothing published. */
export class ChecksumMismatch extends DomainError("ChecksumMismatch", "checksum_mismatch", "unprocessable")<{}> {}

/** The stored object's size differs from the declared one (422 size_mismatch); nothing published. */
export class SizeMismatch extends DomainError("SizeMismatch", "size_mismatch", "unprocessable")<{}> {}

/** A complete of a session that is aborted, expired or failed (409 upload_not_open). */
export class UploadNotOpen extends DomainError("UploadNotOpen", "upload_not_open", "conflict")<{ readonly status: string }> {}

/** A complete with another checksum than the one that completed the session (409 upload_completed). */
export class UploadCompletedDifferently extends DomainError("UploadCompletedDifferently", "upload_completed", "conflict")<{}> {}

/** A complete before every part was stored (409 upload_incomplete); the session stays open. */
export class UploadIncomplete extends DomainError("UploadIncomplete", "upload_incomplete", "conflict")<{
  readonly missingParts: ReadonlyArray<number>;
}> {}

/** An operation that needs a folder got a file, or the reverse (409 not_a_folder / not_a_file). */
export class NotAFolder extends DomainError("NotAFolder", "not_a_folder", "conflict")<{ readonly nodeId: string }> {}
export class NotAFile extends DomainError("NotAFile", "not_a_file", "conflict")<{ readonly nodeId: string }> {}

/** A trashed node (or one under a trashed folder) cannot take this action (409 node_trashed). */
export class NodeTrashed extends DomainError("NodeTrashed", "node_trashed", "conflict")<{ readonly nodeId: string }> {}

/**
 * A folder, file or move that would put a node deeper than FilesSettings.maxDepth below the root
 * (409 tree_too_deep): access checks walk at most that many ancestors.
 */
export class TreeTooDeep extends DomainError("TreeTooDeep", "tree_too_deep", "conflict")<{ readonly maxDepth: number }> {}

/** The root folder cannot be renamed, moved or trashed (409 root_immutable). */
export class RootImmutable extends DomainError("RootImmutable", "root_immutable", "conflict")<{}> {}

/** A quota below what is already used or reserved (409 quota_below_usage). */
export class QuotaBelowUsage extends DomainError("QuotaBelowUsage", "quota_below_usage", "conflict")<{
  readonly usedBytes: number;
  readonly reservedBytes: number;
}> {}

/** A state machine refused a trigger in the current state (409 illegal_transition). */
export class IllegalTransition extends DomainError("IllegalTransition", "illegal_transition", "conflict")<{
  readonly machine: string;
  readonly from: string;
  readonly trigger: string;
}> {}

/**
 * A change cursor older than the retention window (spec: 410 cursor_expired) with the restart
 * point, answered as the problem's `restart_cursor` member.
 */
export class CursorExpired extends DomainError("CursorExpired", "cursor_expired", "gone")<{
  readonly restartCursor: string;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { restart_cursor: this.restartCursor };
  }
}

/** An invalid name: empty, too long, `.`/`..`, or containing `/`, `\` or control characters (422). */
export class InvalidName extends DomainError("InvalidName", "invalid_name", "unprocessable")<{ readonly name: string }> {}

/**
 * A download of a quarantined, blocked or scan_failed version (spec: 423 version_quarantined),
 * naming the version's status in the problem's `version_status` member.
 */
export class VersionQuarantined extends DomainError("VersionQuarantined", "version_quarantined", "locked")<{
  readonly versionId: string;
  readonly status: string;
}> {
  get problemExtensions(): Record<string, unknown> {
    return { version_status: this.status };
  }
}

/** A file without a published version cannot be extracted (409 no_published_version): its bytes were never found clean. */
export class NoPublishedVersion extends DomainError("NoPublishedVersion", "no_published_version", "conflict")<{ readonly nodeId: string }> {}
