/** The file storage audit trail (append-only): security reviews, sample access, quota and legal hold. */
import { Context, type Effect } from "effect";
import type { AuditEntry } from "../../core/files/model/AuditEntry.js";

export interface FilesAudit {
  /** Appends an entry (inside the command's transaction). */
  readonly append: (entry: AuditEntry) => Effect.Effect<void>;
  /** A workspace's entries, oldest first. */
  readonly list: (workspaceId: string, limit: number) => Effect.Effect<ReadonlyArray<AuditEntry>>;
  /** One page of a workspace's entries, oldest first, after the `(createdAt, id)` key (the audit export's pages). */
  readonly page: (workspaceId: string, after: readonly [Date, string] | null, limit: number) => Effect.Effect<ReadonlyArray<AuditEntry>>;
}
export const FilesAudit = Context.GenericTag<FilesAudit>("domainkit/files/FilesAudit");
