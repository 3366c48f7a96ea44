/** Audit of a permission or membership change: who did it and why. */
import { Schema } from "effect";
import { MembershipAuditId, ProjectId, WorkspaceId } from "./Ids.js";

/** Audit of a permission or membership change. */
export const MembershipAudit = Schema.Struct({
  id: MembershipAuditId,
  workspaceId: WorkspaceId,
  projectId: Schema.NullOr(ProjectId),
  userId: Schema.String,
  actorId: Schema.String,
  action: Schema.String,
  role: Schema.NullOr(Schema.String),
  reason: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type MembershipAudit = typeof MembershipAudit.Type;
