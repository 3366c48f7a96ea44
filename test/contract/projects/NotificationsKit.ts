/**
 * Contract kit for the NotificationsRepository: a notification is unique per (recipient,
 * event); every read is scoped to its recipient (another recipient's id finds nothing); lists
 * are newest first by id, strictly before the cursor, filtered by project before the limit;
 * a workspace invitation's notification shows only while its invitation is pending and unexpired
 * (whatever the project scope); marking read is conditional and counted.
 */
import { Effect } from "effect";
import type { Notification } from "../../../core/projects/model/Notification.js";
import type { Project } from "../../../core/projects/model/Project.js";
import { NotificationsRepository } from "../../../ports/projects/NotificationsRepository.js";
import { at, runCases, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedProject, idsOf, uid, type SeedPorts } from "./fixtures.js";
import { CommentId, NotificationId, TaskId, WorkspaceInvitationId } from "../../../core/projects/model/Ids.js";
import type { WorkspaceInvitation } from "../../../core/projects/model/WorkspaceInvitation.js";
import { WorkspaceInvitationsRepository } from "../../../ports/projects/WorkspaceInvitationsRepository.js";

/** The ports this kit needs. */
export type NotificationsKitPorts = NotificationsRepository | WorkspaceInvitationsRepository | SeedPorts;

const notifications = <A>(f: (r: NotificationsRepository) => Effect.Effect<A>) => Effect.flatMap(NotificationsRepository, f);
const ids = idsOf;
const invitations = <A>(f: (r: WorkspaceInvitationsRepository) => Effect.Effect<A>) => Effect.flatMap(WorkspaceInvitationsRepository, f);

/** Notification `n` for `recipientId` about event `eventN` in `project`. */
export const notificationRecord = (project: Project, n: number, recipientId = "user-2", eventN = n): Notification => ({
  id: NotificationId.make(uid("ntf", n)),
  workspaceId: project.workspaceId,
  projectId: project.id,
  invitationId: null,
  recipientId,
  eventId: uid("evt", eventN),
  kind: "mention",
  data: { task_id: TaskId.make(uid("task", 1)), comment_id: CommentId.make(uid("cmt", n)), actor_id: "user-1", task_title: "Write the spec", excerpt: `mention ${n}` },
  readAt: null,
  createdAt: at(n),
});

/** Invitation `n` of `userId` to `project`'s workspace, pending, expiring at `at(expiresN)`. */
const invitationRecord = (project: Project, n: number, userId: string, expiresN: number): WorkspaceInvitation => ({
  id: WorkspaceInvitationId.make(uid("inv", n)),
  workspaceId: project.workspaceId,
  userId,
  role: "member",
  status: "pending",
  invitedBy: "user-1",
  reason: "joins",
  createdAt: at(0),
  expiresAt: at(expiresN),
  decidedAt: null,
  decidedBy: null,
  decidedReason: null,
});

/** Notification `n` of `invitation` to its invitee. */
export const invitationNotificationRecord = (invitation: WorkspaceInvitation, n: number): Notification => ({
  id: NotificationId.make(uid("ntf", n)),
  workspaceId: invitation.workspaceId,
  projectId: null,
  invitationId: invitation.id,
  recipientId: invitation.userId,
  eventId: invitation.id,
  kind: "workspace_invitation",
  data: {
    invitation_id: invitation.id,
    workspace_id: invitation.workspaceId,
    workspace_name: "Acme",
    inviter_id: invitation.invitedBy,
    role: invitation.role,
    expires_at: invitation.expiresAt.toISOString(),
  },
  readAt: null,
  createdAt: at(n),
});

const insertAll = (list: ReadonlyArray<Notification>) => notifications((r) => Effect.forEach(list, (n) => r.insert(n), { discard: true }));

/** The cases of the notifications repository kit. */
export const notificationsCases: ReadonlyArray<KitCase<NotificationsKitPorts>> = [
  {
    name: "notifications: one per (recipient, event): a second insert writes nothing",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const first = notificationRecord(project, 1);
      t.equal(await run(notifications((r) => r.insert(first))), true);
      t.equal(await run(notifications((r) => r.insert({ ...notificationRecord(project, 2), eventId: first.eventId }))), false, "same recipient, same event");
      t.equal(await run(notifications((r) => r.findById(uid("ntf", 2)))), null, "nothing written");
      t.equal(await run(notifications((r) => r.insert(notificationRecord(project, 3, "user-3", 1)))), true, "another recipient of the same event");
    },
  },
  {
    name: "notifications: find is scoped to the recipient; findById is not",
    run: async (t, run) => {
      const project = await run(seedProject(1));
      const mine = notificationRecord(project, 1);
      await run(insertAll([mine]));
      t.same(await run(notifications((r) => r.find("user-2", mine.id))), mine, "reads back as written");
      t.equal(await run(notifications((r) => r.find("user-3", mine.id))), null, "another recipient's is null");
      t.same(await run(notifications((r) => r.findById(mine.id))), mine);
      t.equal(await run(notifications((r) => r.findById(uid("ntf", 9)))), null);
    },
  },
  {
    name: "notifications: lists are newest first by id, strictly before the cursor, filtered by project before the limit",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      await run(
        insertAll([
          notificationRecord(a, 1),
          notificationRecord(b, 2),
          notificationRecord(a, 3),
          notificationRecord(a, 4, "user-3"),
          notificationRecord(b, 5),
          notificationRecord(a, 6),
        ]),
      );
      const list = (projectIds: ReadonlyArray<string>, limit: number, beforeId?: string) =>
        run(notifications((r) => r.list({ recipientId: "user-2", scope: { projectIds }, at: at(0), beforeId, limit })));
      t.same(ids(await list([a.id], 10)), [uid("ntf", 6), uid("ntf", 3), uid("ntf", 1)], "the recipient's, in project a");
      t.same(ids(await list([a.id, b.id], 2, uid("ntf", 5))), [uid("ntf", 3), uid("ntf", 2)]);
      t.same(ids(await list([b.id], 1, uid("ntf", 5))), [uid("ntf", 2)], "the filter applies before the limit");
      t.same(ids(await list([], 10)), [], "no visible project, no notification");
    },
  },
  {
    name: "notifications: markRead sets read_at once, only for the recipient; unreadCount follows",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const b = await run(seedProject(1, 2));
      await run(insertAll([notificationRecord(a, 1), notificationRecord(a, 2), notificationRecord(b, 3), notificationRecord(a, 4, "user-3")]));
      t.equal(await run(notifications((r) => r.unreadCount("user-2", { projectIds: [a.id] }, at(0)))), 2);
      t.equal(await run(notifications((r) => r.unreadCount("user-2", { projectIds: [a.id, b.id] }, at(0)))), 3);
      t.equal(await run(notifications((r) => r.markRead("user-3", uid("ntf", 1), at(100)))), false, "not the recipient");
      t.equal(await run(notifications((r) => r.markRead("user-2", uid("ntf", 1), at(100)))), true);
      t.equal((await run(notifications((r) => r.findById(uid("ntf", 1)))))?.readAt?.getTime(), at(100).getTime());
      await run(notifications((r) => r.markRead("user-2", uid("ntf", 1), at(200))));
      t.equal((await run(notifications((r) => r.findById(uid("ntf", 1)))))?.readAt?.getTime(), at(100).getTime(), "read_at is set only while null");
      t.equal(await run(notifications((r) => r.markRead("user-2", uid("ntf", 9), at(100)))), false, "unknown");
      t.equal(await run(notifications((r) => r.unreadCount("user-2", { projectIds: [a.id] }, at(0)))), 1);
    },
  },
  {
    name: "notifications: markAllRead marks the recipient's unread ones and counts them",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      await run(insertAll([notificationRecord(a, 1), notificationRecord(a, 2), notificationRecord(a, 3), notificationRecord(a, 4, "user-3")]));
      await run(notifications((r) => r.markRead("user-2", uid("ntf", 1), at(50))));
      t.equal(await run(notifications((r) => r.markAllRead("user-2", at(100)))), 2);
      t.equal(await run(notifications((r) => r.markAllRead("user-2", at(200)))), 0, "nothing left unread");
      t.equal(await run(notifications((r) => r.unreadCount("user-3", { projectIds: [a.id] }, at(0)))), 1, "another recipient's stay unread");
      t.equal((await run(notifications((r) => r.findById(uid("ntf", 1)))))?.readAt?.getTime(), at(50).getTime(), "an already read one keeps its time");
    },
  },
  {
    name: "notifications: an invitation's notification shows only while its invitation is pending and unexpired, whatever the project scope",
    run: async (t, run) => {
      const a = await run(seedProject(1));
      const open = invitationRecord(a, 1, "user-2", 100);
      const declined = invitationRecord(a, 2, "user-3", 100);
      const expiring = invitationRecord(a, 3, "user-4", 10);
      await run(invitations((r) => Effect.forEach([open, declined, expiring], (i) => r.insert(i))));
      await run(insertAll([notificationRecord(a, 1), invitationNotificationRecord(open, 2), notificationRecord(a, 3), invitationNotificationRecord(declined, 4), invitationNotificationRecord(expiring, 5)]));
      await run(invitations((r) => r.decide({ id: declined.id, status: "declined", at: at(1), by: "user-3", reason: "no" })));
      const list = (recipientId: string, projectIds: ReadonlyArray<string>, when: number, limit = 10) =>
        run(notifications((r) => r.list({ recipientId, scope: { projectIds }, at: at(when), limit })));
      const count = (recipientId: string, projectIds: ReadonlyArray<string>, when: number) =>
        run(notifications((r) => r.unreadCount(recipientId, { projectIds }, at(when))));
      t.same(ids(await list("user-2", [a.id], 5)), [uid("ntf", 3), uid("ntf", 2), uid("ntf", 1)], "mentions and the pending invitation's, newest first");
      t.same(ids(await list("user-2", [], 5)), [uid("ntf", 2)], "no visible project: the invitation's still shows");
      t.same(ids(await list("user-2", [a.id], 5, 2)), [uid("ntf", 3), uid("ntf", 2)], "within the limit");
      t.same(ids(await run(notifications((r) => r.list({ recipientId: "user-2", scope: { visibleTo: "user-2" }, at: at(5), limit: 10 })))), [uid("ntf", 2)], "a scope by membership: the invitation's shows");
      t.equal(await count("user-2", [], 5), 1, "and counts unread");
      t.same(ids(await list("user-3", [a.id], 5)), [], "a declined invitation's does not show");
      t.equal(await count("user-3", [a.id], 5), 0, "nor count");
      t.same(ids(await list("user-4", [], 5)), [uid("ntf", 5)], "before its expiry, it shows");
      t.same(ids(await list("user-4", [], 10)), [], "from its expiry on, it does not");
      t.equal(await count("user-4", [], 10), 0, "nor counts");
      t.same(await run(notifications((r) => r.find("user-2", uid("ntf", 2)))), invitationNotificationRecord(open, 2), "reads back as written");
      t.equal(await run(notifications((r) => r.find("user-3", uid("ntf", 2)))), null, "another recipient's is null");
      t.equal(await run(notifications((r) => r.markAllRead("user-3", at(5)))), 0, "read-all leaves a closed invitation's as it is");
      t.equal(await run(notifications((r) => r.markAllRead("user-2", at(5)))), 3, "and marks the mentions and an open invitation's");
    },
  },
];

/** Runs the notifications repository kit. */
export const notificationsSuite = (options: SuiteOptions<NotificationsKitPorts>): Promise<unknown> => runCases(options, notificationsCases);
