/**
 * The invitee's e-mail about a workspace invitation: one durable job per invitation, keyed by its
 * id and scheduled in the invitation's own transaction. It is sent only while the invitation is
 * pending and unexpired (a cancelled, declined or accepted one sends nothing), to the invitee's
 * address (NotificationsAddressBook; none: nothing sent), naming the workspace, the role, the
 * expiry and how to answer. A Mailer failure fails the job, which the runner retries with
 * backoff; the message id is the invitation's, so a retry is recognisable as the same mail.
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { withSpan } from "../kernel/Span.js";
import { Mailer } from "../../ports/Mailer.js";
import { NotificationsAddressBook } from "../../ports/projects/NotificationsAddressBook.js";
import { WorkspaceInvitationsRepository } from "../../ports/projects/WorkspaceInvitationsRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { WorkspaceInvitationId } from "./model/Ids.js";
import { invitationAt } from "./model/WorkspaceInvitation.js";

/** The job kind of one invitation's e-mail. */
export const invitationEmailJobKind = "projects.invitation_email";

/** Sends the invitation's e-mail while it is still open; "skipped" otherwise. */
export const sendInvitationEmail = (
  invitationId: WorkspaceInvitationId,
): Effect.Effect<"sent" | "skipped", unknown, WorkspaceInvitationsRepository | WorkspacesRepository | NotificationsAddressBook | Mailer> =>
  Effect.gen(function* () {
    const invitation = yield* (yield* WorkspaceInvitationsRepository).find(invitationId);
    // Read when the mail goes out (a retry may run much later): only an open offer is announced.
    if (invitation === null || invitationAt(invitation, yield* now).status !== "pending") return "skipped" as const;
    const workspace = yield* (yield* WorkspacesRepository).findWorkspace(invitation.workspaceId);
    if (workspace === null) return "skipped" as const;
    const to = yield* (yield* NotificationsAddressBook).addressOf(invitation.userId);
    if (to === null) return "skipped" as const;
    yield* (yield* Mailer).send({
      messageId: `<${invitation.id}@domainkit>`,
      to,
      subject: `You are invited to the workspace "${workspace.name}"`,
      text:
        `You are invited to join the workspace "${workspace.name}" as ${invitation.role}, until ${invitation.expiresAt.toISOString()}.\n\n` +
        `Accept: POST /v1/invitations/${invitation.id}/accept\nDecline: POST /v1/invitations/${invitation.id}/decline\n` +
        `Your pending invitations: GET /v1/invitations\n`,
    });
    return "sent" as const;
  }).pipe(withSpan("Projects.sendInvitationEmail"));

/** The e-mail job: payload `{ invitation_id }`. */
export const invitationEmailJob = defineJob({
  kind: invitationEmailJobKind,
  payload: Schema.Struct({ invitation_id: WorkspaceInvitationId }),
  handle: (payload) => Effect.asVoid(sendInvitationEmail(payload.invitation_id)),
});
