/** Storage of per-recipient notifications (`pm_notifications`, unique per recipient and event). */
import { Context, Effect } from "effect";
import type { Notification } from "../../core/projects/model/Notification.js";
import type { ProjectScope } from "./ProjectScope.js";

/** The notification repository; every read is scoped to one recipient. */
export interface NotificationsRepository {
  /** Inserts the notification; false (nothing written) when (recipient, event) already has one. */
  readonly insert: (notification: Notification) => Effect.Effect<boolean>;
  /** One notification of the recipient, or null (another recipient's is null too). */
  readonly find: (recipientId: string, id: string) => Effect.Effect<Notification | null>;
  /** By id alone, for background delivery. */
  readonly findById: (id: string) => Effect.Effect<Notification | null>;
  /**
   * The recipient's visible notifications, newest first by id, strictly before `beforeId`:
   * mentions of the scope's projects, and workspace invitations' notifications while their
   * invitation is pending and unexpired at `at`. The filter is applied in the query, before the
   * limit.
   */
  readonly list: (req: {
    readonly recipientId: string;
    readonly scope: ProjectScope;
    readonly at: Date;
    readonly beforeId?: string | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Notification>>;
  /** How many of them are unread (same filter). */
  readonly unreadCount: (recipientId: string, scope: ProjectScope, at: Date) => Effect.Effect<number>;
  /** Sets read_at where it is still null; false when the recipient has no such notification. */
  readonly markRead: (recipientId: string, id: string, at: Date) => Effect.Effect<boolean>;
  /**
   * Marks the recipient's unread mentions read (of any project, as before), and its invitations'
   * notifications that still show at `at` (a closed invitation's never shows again); answers how
   * many changed.
   */
  readonly markAllRead: (recipientId: string, at: Date) => Effect.Effect<number>;
}
export const NotificationsRepository = Context.GenericTag<NotificationsRepository>("domainkit/projects/NotificationsRepository");
