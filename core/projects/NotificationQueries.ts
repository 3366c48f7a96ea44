/**
 * The caller's own notifications: list (newest first, cursor), unread count, mark one or all
 * read. Only notifications of projects the caller can still see are shown, filtered before the
 * limit, so a revoked membership also hides what it once notified; a workspace invitation's shows
 * only while the invitation is pending and unexpired (read-time, as its expiry writes nothing).
 * Marking read is idempotent; someone else's notification, or one not shown, answers 404.
 */
import { Effect, Either } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { NotFound, type Forbidden, type InvalidCursor } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { NotificationsRepository } from "../../ports/projects/NotificationsRepository.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess, requireUser, visibleProjectScope } from "./Access.js";
import { now } from "../kernel/Clock.js";
import { asInvitationNotice, asMention, type Notification } from "./model/Notification.js";
import { invitationAt } from "./model/WorkspaceInvitation.js";
import { WorkspaceInvitationsRepository } from "../../ports/projects/WorkspaceInvitationsRepository.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { withSpan } from "../kernel/Span.js";

type Services = NotificationsRepository | WorkspacesRepository | ProjectsRepository | WorkspaceInvitationsRepository;

/**
 * Whether the list shows `notification` to `userId` now: a mention while its project is visible
 * (one access read, whatever the caller's membership count); an invitation's while the invitation
 * is the caller's, pending and unexpired (one read).
 */
const isShown = (userId: string, notification: Notification) =>
  Effect.gen(function* () {
    const mention = asMention(notification);
    if (mention !== null) return Either.isRight(yield* Effect.either(projectAccess(userId, mention.projectId)));
    const notice = asInvitationNotice(notification);
    if (notice === null) return false;
    const invitation = yield* (yield* WorkspaceInvitationsRepository).find(notice.invitationId);
    return invitation !== null && invitation.userId === userId && invitationAt(invitation, yield* now).status === "pending";
  });

/** The caller's notifications, newest first. */
export const listNotifications = (
  principal: Principal,
  query: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<Notification>, Forbidden | InvalidCursor, Services> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const before = query.cursor === undefined ? undefined : yield* decodeCursor(IdCursorKey, query.cursor);
    const scope = yield* visibleProjectScope(userId);
    const rows = yield* (yield* NotificationsRepository).list({ recipientId: userId, scope, at: yield* now, beforeId: before?.[0], limit: query.limit + 1 });
    return pageFrom(rows, query.limit, (n) => [n.id]);
  }).pipe(withSpan("Projects.listNotifications"));

/** How many of the caller's visible notifications are unread. */
export const unreadNotificationCount = (principal: Principal): Effect.Effect<number, Forbidden, Services> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    return yield* (yield* NotificationsRepository).unreadCount(userId, yield* visibleProjectScope(userId), yield* now);
  });

/** Marks one of the caller's notifications read (again is a no-op); answers it. */
export const markNotificationRead = (principal: Principal, id: string): Effect.Effect<Notification, Forbidden | NotFound, Services> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const repo = yield* NotificationsRepository;
    const found = yield* repo.find(userId, id);
    if (found === null || !(yield* isShown(userId, found))) {
      return yield* Effect.fail(new NotFound({ resource: "notification", detail: "No such notification." }));
    }
    yield* repo.markRead(userId, id, yield* now);
    return (yield* repo.find(userId, id)) ?? found;
  });

/** Marks every notification of the caller read (a closed invitation's, never shown again, is left); answers how many changed. */
export const markAllNotificationsRead = (principal: Principal): Effect.Effect<number, Forbidden, NotificationsRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    return yield* (yield* NotificationsRepository).markAllRead(userId, yield* now);
  });
