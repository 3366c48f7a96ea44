/**
 * Mention delivery (spec rule 5): a consumer of CommentAdded and CommentEdited writes one
 * notification per mentioned user who can see the task — the `(recipient_id, event_id)` UNIQUE
 * makes a second delivery of the same event write nothing — and schedules one e-mail job per
 * new notification. Users who cannot see the project get nothing; the author is not notified
 * of their own mention. An edit's event lists only the newly added mentions.
 */
import { Clock, Effect, Option, Schema } from "effect";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { Mailer } from "../../ports/Mailer.js";
import { NotificationsAddressBook } from "../../ports/projects/NotificationsAddressBook.js";
import { NotificationsRepository } from "../../ports/projects/NotificationsRepository.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess } from "./Access.js";
import { asMention, type Notification } from "./model/Notification.js";
import { allows } from "./Roles.js";
import { ProjectEvent } from "./Events.js";
import { withSpan } from "../kernel/Span.js";
import { NotificationId, ProjectId } from "./model/Ids.js";

/** The inbox name of the mention consumer. */
export const mentionConsumerName = "projects.mentions";
/** The job kind of one notification's e-mail. */
export const mentionEmailJobKind = "projects.mention_email";

const mentionEventTypes = new Set(["CommentAdded", "CommentEdited"]);

const decodeEvent = Schema.decodeUnknownOption(ProjectEvent);

/** The data of a comment event (CommentAdded: every mention; CommentEdited: only the added ones), or null. */
const commentData = (envelope: EventEnvelope) => {
  const event = Option.getOrNull(decodeEvent(envelope));
  return event !== null && (event.type === "CommentAdded" || event.type === "CommentEdited") ? event.data : null;
};

/** Whether `userId` may read the project now (workspace and project membership, as for any read). */
const maySee = (userId: string, projectId: ProjectId) =>
  projectAccess(userId, projectId).pipe(
    Effect.map((access) => allows(access.role, "read")),
    Effect.catchTag("NotFound", () => Effect.succeed(false)),
  );

/** Writes the notifications of one comment event; answers the ones this call created. */
export const notifyMentions = (
  event: EventEnvelope,
): Effect.Effect<ReadonlyArray<Notification>, never, NotificationsRepository | WorkspacesRepository | ProjectsRepository | Jobs | Ids> =>
  Effect.gen(function* () {
    const data = commentData(event);
    if (data === null) return [];
    const repo = yield* NotificationsRepository;
    const ids = yield* Ids;
    const createdAt = new Date(yield* Clock.currentTimeMillis);
    const created: Notification[] = [];
    for (const recipientId of new Set(data.mentions)) {
      if (recipientId === event.actor_id) continue;
      if (!(yield* maySee(recipientId, data.project_id))) continue;
      const notification: Notification = {
        id: NotificationId.make(yield* ids.next),
        workspaceId: data.task.workspaceId,
        projectId: data.project_id,
        invitationId: null,
        recipientId,
        eventId: event.id,
        kind: "mention",
        data: {
          task_id: data.task.id,
          comment_id: data.comment.id,
          actor_id: event.actor_id ?? "",
          task_title: data.task.title,
          excerpt: data.comment.body.slice(0, 280),
        },
        readAt: null,
        createdAt,
      };
      // A redelivered event finds the (recipient, event) row taken: nothing new, no second e-mail.
      if (!(yield* repo.insert(notification))) continue;
      yield* mentionEmailJob.schedule({ notification_id: notification.id }, { runAt: createdAt, key: notification.id });
      created.push(notification);
    }
    return created;
  }).pipe(withSpan("Projects.notifyMentions"));

/** The mention consumer (shaped as adapters/worker's Consumer; hosts list it in the module). */
export const mentionNotificationsConsumer = {
  name: mentionConsumerName,
  handles: (event: EventEnvelope): boolean => mentionEventTypes.has(event.type),
  handle: (event: EventEnvelope) => Effect.asVoid(notifyMentions(event)),
};

/**
 * Sends one notification's e-mail, only while its recipient can still see the project (else
 * "skipped": nothing is sent and the job ends). A Mailer failure fails the job, which the runner retries with
 * backoff; the message id is the notification's, so a retry is recognisable as the same mail.
 */
export const sendMentionEmail = (
  notificationId: NotificationId,
): Effect.Effect<
  "sent" | "skipped",
  unknown,
  NotificationsRepository | NotificationsAddressBook | Mailer | WorkspacesRepository | ProjectsRepository
> =>
  Effect.gen(function* () {
    const found = yield* (yield* NotificationsRepository).findById(notificationId);
    const notification = found === null ? null : asMention(found);
    if (notification === null) return "skipped" as const;
    // Access is re-checked when the mail goes out (a retry may run hours later): a recipient who
    // can no longer see the project gets no excerpt of it, as the notification list hides it.
    if (!(yield* maySee(notification.recipientId, notification.projectId))) return "skipped" as const;
    const to = yield* (yield* NotificationsAddressBook).addressOf(notification.recipientId);
    if (to === null) return "skipped" as const;
    yield* (yield* Mailer).send({
      messageId: `<${notification.id}@domainkit>`,
      to,
      subject: `You were mentioned on "${notification.data.task_title}"`,
      text: `${notification.data.excerpt}\n\nTask ${notification.data.task_id}, comment ${notification.data.comment_id}.`,
    });
    return "sent" as const;
  }).pipe(withSpan("Projects.sendMentionEmail"));

/** The e-mail job: payload `{ notification_id }`. */
export const mentionEmailJob = defineJob({
  kind: mentionEmailJobKind,
  payload: Schema.Struct({ notification_id: NotificationId }),
  handle: (payload) => Effect.asVoid(sendMentionEmail(payload.notification_id)),
});

/** The e-mail job under its former name (hosts/modules/projectsModule.ts). */
export const mentionEmailJobHandler = mentionEmailJob;
