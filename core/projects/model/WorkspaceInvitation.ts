/**
 * An owner's invitation of a user to a workspace: the membership is written only when the invitee
 * accepts it (consent before membership). It records who invited and why, and once decided
 * (accepted, declined, cancelled, expired) who decided, when and why; a decision is final.
 */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { WorkspaceRole } from "./Roles.js";
import { WorkspaceId, WorkspaceInvitationId } from "./Ids.js";
import { WorkspaceMember } from "./WorkspaceMember.js";

/** Where an invitation stands; every status but `pending` is final. */
export const InvitationStatus = Schema.Literal("pending", "accepted", "declined", "cancelled", "expired");
export type InvitationStatus = typeof InvitationStatus.Type;

/** An invitation as stored. */
export const WorkspaceInvitation = Schema.Struct({
  id: WorkspaceInvitationId,
  workspaceId: WorkspaceId,
  userId: Schema.String,
  role: WorkspaceRole,
  status: InvitationStatus,
  invitedBy: Schema.String,
  reason: Schema.String,
  createdAt: Schema.DateFromSelf,
  expiresAt: Schema.DateFromSelf,
  decidedAt: Schema.NullOr(Schema.DateFromSelf),
  decidedBy: Schema.NullOr(Schema.String),
  decidedReason: Schema.NullOr(Schema.String),
});
export type WorkspaceInvitation = typeof WorkspaceInvitation.Type;

/**
 * The invitation as it stands at `at`: a pending one past its expiry is `expired` (the row is
 * marked so only when a later invitation of the same user replaces it; nothing acts on it).
 */
export const invitationAt = (invitation: WorkspaceInvitation, at: Date): WorkspaceInvitation =>
  invitation.status === "pending" && invitation.expiresAt <= at ? { ...invitation, status: "expired" } : invitation;

/** Wire shape of an invitation. */
export const WorkspaceInvitationView = wireShape(WorkspaceInvitation);

/**
 * An invitation as its invitee lists it: with the name of the workspace it invites to, which the
 * invitee cannot read otherwise before accepting (consent needs to know to what).
 */
export const InvitationToUser = Schema.Struct({ ...WorkspaceInvitation.fields, workspaceName: Schema.String });
export type InvitationToUser = typeof InvitationToUser.Type;

/** Wire shape of an invitation in its invitee's list. */
export const InvitationToUserView = wireShape(InvitationToUser);

/** An accepted invitation and the membership it made. */
export const AcceptedInvitationView = Schema.Struct({ invitation: WorkspaceInvitationView, member: wireShape(WorkspaceMember) });
