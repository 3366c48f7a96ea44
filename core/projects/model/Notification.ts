/** A per-recipient notification (spec: Notification, unique per recipient and event). */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { CommentId, NotificationId, ProjectId, TaskId, WorkspaceId } from "./Ids.js";

/** What a mention notification tells its recipient. */
export const MentionNotificationData = Schema.Struct({
  task_id: TaskId,
  comment_id: CommentId,
  actor_id: Schema.String,
  task_title: Schema.String,
  excerpt: Schema.String,
});

/** One notification; `readAt` null means unread. */
export const Notification = Schema.Struct({
  id: NotificationId,
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  recipientId: Schema.String,
  /** The event that caused it (CommentAdded or CommentEdited); unique together with the recipient. */
  eventId: Schema.String,
  kind: Schema.Literal("mention"),
  data: MentionNotificationData,
  readAt: Schema.NullOr(Schema.DateFromSelf),
  createdAt: Schema.DateFromSelf,
});
export type Notification = typeof Notification.Type;

/** A notification as its recipient sees it (the recipient is the caller). */
export const NotificationView = wireShape(Schema.Struct(Struct.omit(Notification.fields, "recipientId")));
