/**
 * The invitee's in-app notification of a workspace invitation: written in the invitation's own
 * transaction (as its e-mail job is scheduled), keyed by the invitation (its event id), so one
 * invitation notifies its invitee once. It carries the invitation, the workspace and its name
 * and the inviter. Reads show it only while the invitation is pending and unexpired
 * (NotificationsRepository.list, NotificationQueries): a decision or the expiry needs no write.
 */
import { Effect } from "effect";
import { Ids } from "../../ports/Ids.js";
import { NotificationsRepository } from "../../ports/projects/NotificationsRepository.js";
import { NotificationId } from "./model/Ids.js";
import type { Notification } from "./model/Notification.js";
import type { WorkspaceInvitation } from "./model/WorkspaceInvitation.js";

/** Writes the invitee's notification of `invitation` (to the workspace named `workspaceName`). */
export const notifyInvitee = (
  invitation: WorkspaceInvitation,
  workspaceName: string,
): Effect.Effect<Notification, never, NotificationsRepository | Ids> =>
  Effect.gen(function* () {
    const notification: Notification = {
      id: NotificationId.make(yield* (yield* Ids).next),
      workspaceId: invitation.workspaceId,
      projectId: null,
      invitationId: invitation.id,
      recipientId: invitation.userId,
      eventId: invitation.id,
      kind: "workspace_invitation",
      data: {
        invitation_id: invitation.id,
        workspace_id: invitation.workspaceId,
        workspace_name: workspaceName,
        inviter_id: invitation.invitedBy,
        role: invitation.role,
        expires_at: invitation.expiresAt.toISOString(),
      },
      readAt: null,
      createdAt: invitation.createdAt,
    };
    yield* (yield* NotificationsRepository).insert(notification);
    return notification;
  });
