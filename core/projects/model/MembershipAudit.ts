/** Audit of a permission or membership change: who did it and why. */
import { Schema } from "effect";

/** Audit of a permission or membership change. */
export const MembershipAudit = Schema.Struct({
  id: Schema.String,
  workspaceId: Schema.String,
  projectId: Schema.NullOr(Schema.String),
  userId: Schema.String,
  actorId: Schema.String,
  action: Schema.String,
  role: Schema.NullOr(Schema.String),
  reason: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type MembershipAudit = typeof MembershipAudit.Type;
