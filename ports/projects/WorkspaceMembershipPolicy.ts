/**
 * How users join a workspace, as the host composes the module: by invitation (the default: an
 * owner invites, the user accepts), or, for a host whose own user directory decides membership,
 * also by an owner's direct add (`directMemberAdds`).
 */
import { Context } from "effect";

/** The workspace membership policy. */
export interface WorkspaceMembershipPolicy {
  /** True: POST /v1/workspaces/:id/members adds a non-member directly; false: 409 invitation_required. */
  readonly directMemberAdds: boolean;
}
export const WorkspaceMembershipPolicy = Context.GenericTag<WorkspaceMembershipPolicy>("domainkit/projects/WorkspaceMembershipPolicy");
