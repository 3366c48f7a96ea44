/** A per-recipient notification (spec: Notification, unique per recipient and event) and its wire shape. */
import { Schema } from "effect";

/** One notification; `readAt` null means unread. */
export interface Notification {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly recipientId: string;
  /** The event that caused it (CommentAdded or CommentEdited); unique together with the recipient. */
  readonly eventId: string;
  readonly kind: "mention";
  readonly data: {
    readonly task_id: string;
    readonly comment_id: string;
    readonly actor_id: string;
    readonly task_title: string;
    readonly excerpt: string;
  };
  readonly readAt: Date | null;
  readonly createdAt: Date;
}

/** Wire shape of a notification. */
export const NotificationView = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  project_id: Schema.String,
  event_id: Schema.String,
  kind: Schema.Literal("mention"),
  data: Schema.Struct({
    task_id: Schema.String,
    comment_id: Schema.String,
    actor_id: Schema.String,
    task_title: Schema.String,
    excerpt: Schema.String,
  }),
  read_at: Schema.NullOr(Schema.String),
  created_at: Schema.String,
});

/** A notification as its recipient sees it. */
export const notificationView = (n: Notification): typeof NotificationView.Type => ({
  id: n.id,
  workspace_id: n.workspaceId,
  project_id: n.projectId,
  event_id: n.eventId,
  kind: n.kind,
  data: { ...n.data },
  read_at: n.readAt === null ? null : n.readAt.toISOString(),
  created_at: n.createdAt.toISOString(),
});
