/** A per-recipient notification (spec: Notification, unique per recipient and event). */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { CommentId, NotificationId, ProjectId, TaskId, WorkspaceId, WorkspaceInvitationId } from "./Ids.js";
import { WorkspaceRole } from "./Roles.js";

/** What a mention notification tells its recipient. */
export const MentionNotificationData = Schema.Struct({
  task_id: TaskId,
  comment_id: CommentId,
  actor_id: Schema.String,
  task_title: Schema.String,
  excerpt: Schema.String,
});
export type MentionNotificationData = typeof MentionNotificationData.Type;

/** What a workspace invitation's notification tells its invitee (`expires_at`: RFC 3339 text). */
export const InvitationNotificationData = Schema.Struct({
  invitation_id: WorkspaceInvitationId,
  workspace_id: WorkspaceId,
  workspace_name: Schema.String,
  inviter_id: Schema.String,
  role: WorkspaceRole,
  expires_at: Schema.String,
});
export type InvitationNotificationData = typeof InvitationNotificationData.Type;

/** What a notification is about: a mention in a project, or a workspace invitation. */
export const NotificationKind = Schema.Literal("mention", "workspace_invitation");
export type NotificationKind = typeof NotificationKind.Type;

/**
 * One notification; `readAt` null means unread. A mention has its project and no invitation; a
 * workspace invitation's has its invitation and no project (the database holds this too).
 */
export const Notification = Schema.Struct({
  id: NotificationId,
  workspaceId: WorkspaceId,
  projectId: Schema.NullOr(ProjectId),
  invitationId: Schema.NullOr(WorkspaceInvitationId),
  recipientId: Schema.String,
  /** The event that caused it (CommentAdded or CommentEdited; the invitation's id); unique together with the recipient. */
  eventId: Schema.String,
  kind: NotificationKind,
  data: Schema.Union(MentionNotificationData, InvitationNotificationData),
  readAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
});
export type Notification = typeof Notification.Type;

/** A mention notification: its project and mention data. */
export type MentionNotification = Notification & { readonly kind: "mention"; readonly projectId: ProjectId; readonly data: MentionNotificationData };
/** A workspace invitation's notification: its invitation and invitation data. */
export type InvitationNotification = Notification & {
  readonly kind: "workspace_invitation";
  readonly invitationId: WorkspaceInvitationId;
  readonly data: InvitationNotificationData;
};

/** The notification as a mention, or null. */
export const asMention = (n: Notification): MentionNotification | null =>
  n.kind === "mention" && n.projectId !== null && "task_id" in n.data ? (n as MentionNotification) : null;

/** The notification as a workspace invitation's, or null. */
export const asInvitationNotice = (n: Notification): InvitationNotification | null =>
  n.kind === "workspace_invitation" && n.invitationId !== null && "invitation_id" in n.data ? (n as InvitationNotification) : null;

/** A notification as its recipient sees it (the recipient is the caller). */
export const NotificationView = wireShape(Schema.Struct(Struct.omit(Notification.fields, "recipientId")));
