/**
 * The file storage audit trail (legal hold, quota changes, security operators' sample access,
 * release or block after review): who did what to which object, and why. Append-only.
 */
import { Schema } from "effect";
import { WorkspaceId } from "./Ids.js";

/** The audit entry record. */
export const AuditEntry = Schema.Struct({
  id: Schema.String,
  workspaceId: WorkspaceId,
  actorId: Schema.String,
  action: Schema.String,
  targetId: Schema.String,
  reason: Schema.NullOr(Schema.String),
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.DateFromSelf,
});
export type AuditEntry = typeof AuditEntry.Type;
