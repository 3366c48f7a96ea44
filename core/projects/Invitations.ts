/**
 * Workspace invitations: consent before membership. An owner invites a user with a role (14 days
 * to answer); the membership is written only when the invitee accepts, through the path every
 * membership change takes (`writeWorkspaceMembership`: the owners lock, the audit on the inviting
 * owner's authority, WorkspaceMembershipGranted). Only the invitee sees, accepts or declines an
 * invitation (anyone else: NotFound, as for an unknown id); the workspace's owners list and cancel
 * them. Every decision is one conditional update of a pending invitation, so of an accept racing
 * a second accept, a decline or a cancel exactly one wins and the other answers 409. An expired
 * invitation answers 410 invitation_expired (its offer is gone for good, as an expired export).
 */
import { Effect } from "effect";
import { decodeCursor } from "../kernel/Cursor.js";
import { Forbidden, NotFound, type InvalidCursor } from "../kernel/Errors.js";
import { IdCursorKey, pageFrom, type Page } from "../kernel/Page.js";
import { now } from "../kernel/Clock.js";
import { withSpan } from "../kernel/Span.js";
import { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import type { RealtimeBus } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import type { ShareLinksRepository } from "../../ports/projects/ShareLinksRepository.js";
import { WorkspaceInvitationsRepository } from "../../ports/projects/WorkspaceInvitationsRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { requireUser } from "./Access.js";
import { AlreadyMember, InvitationExpired, InvitationNotPending, InvitationPending, InvitationWithdrawn } from "./Errors.js";
import { announceAccessChanged } from "./MembershipEvents.js";
import { WorkspaceInvitationId, type WorkspaceId } from "./model/Ids.js";
import type { WorkspaceRole } from "./model/Roles.js";
import { invitationAt, type InvitationToUser, type WorkspaceInvitation } from "./model/WorkspaceInvitation.js";
import type { WorkspaceMember } from "./model/WorkspaceMember.js";
import { lockOwners, requireOwner, writeWorkspaceMembership } from "./Workspaces.js";
import { invitationEmailJob } from "./InvitationEmail.js";
import { notifyInvitee } from "./InvitationNotification.js";
import type { NotificationsRepository } from "../../ports/projects/NotificationsRepository.js";

/** How long an invitation may be accepted. */
export const invitationLifetimeMs = 14 * 24 * 3600 * 1000;

type InvitationServices = WorkspacesRepository | WorkspaceInvitationsRepository | Transactions;

const invitationNotFound = () => new NotFound({ resource: "invitation", detail: "No such invitation." });

/** The invitation, when `userId` is its invitee; NotFound otherwise (existence never leaks to others). */
const inviteeOnly = (userId: string, id: WorkspaceInvitationId) =>
  Effect.gen(function* () {
    const invitation = yield* (yield* WorkspaceInvitationsRepository).find(id);
    if (invitation === null || invitation.userId !== userId) return yield* Effect.fail(invitationNotFound());
    return invitation;
  });

/** Why a decision found the invitation no longer pending: expired (410), or decided already (409). */
const notPending = (invitation: WorkspaceInvitation | null, at: Date): InvitationExpired | InvitationNotPending =>
  invitation !== null && invitationAt(invitation, at).status === "expired"
    ? new InvitationExpired({ detail: "The invitation expired; ask an owner for a new one." })
    : new InvitationNotPending({ detail: `The invitation is ${invitation?.status ?? "gone"}.` });

/**
 * Invites `userId` to the workspace with `role` (owner only). Under the workspace's owners lock:
 * a member is not invited (409 already_member), a user has one pending invitation per workspace
 * (409 invitation_pending; an expired one is marked expired first, so it never blocks a new one).
 */
export const inviteToWorkspace = (
  principal: Principal,
  workspaceId: WorkspaceId,
  input: { readonly userId: string; readonly role: WorkspaceRole; readonly reason?: string | undefined },
): Effect.Effect<WorkspaceInvitation, Forbidden | NotFound | AlreadyMember | InvitationPending, InvitationServices | NotificationsRepository | Ids | Jobs> =>
  Effect.gen(function* () {
    const actorId = yield* requireOwner(principal, workspaceId);
    const userId = input.userId.toLowerCase();
    const invitations = yield* WorkspaceInvitationsRepository;
    const id = WorkspaceInvitationId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* lockOwners(workspaceId, actorId);
        if ((yield* (yield* WorkspacesRepository).findMember(workspaceId, userId)) !== null) {
          return yield* Effect.fail(new AlreadyMember({ detail: "The user is already a member of the workspace." }));
        }
        const at = yield* now;
        const pending = yield* invitations.findPending(workspaceId, userId);
        if (pending !== null && pending.expiresAt > at) {
          return yield* Effect.fail(new InvitationPending({ detail: "The user already has a pending invitation to this workspace." }));
        }
        if (pending !== null) yield* invitations.decide({ id: pending.id, status: "expired", at, by: actorId, reason: "expired" });
        const invitation: WorkspaceInvitation = {
          id,
          workspaceId,
          userId,
          role: input.role,
          status: "pending",
          invitedBy: actorId,
          reason: input.reason ?? "invited by an owner",
          createdAt: at,
          expiresAt: new Date(at.getTime() + invitationLifetimeMs),
          decidedAt: null,
          decidedBy: null,
          decidedReason: null,
        };
        if ((yield* invitations.insert(invitation)) === "pending_exists") {
          return yield* Effect.fail(new InvitationPending({ detail: "The user already has a pending invitation to this workspace." }));
        }
        // The invitee is told in-app and by e-mail (a durable job), both committed with the invitation.
        const workspace = yield* (yield* WorkspacesRepository).findWorkspace(workspaceId);
        if (workspace === null) return yield* Effect.die(new Error("an owner's workspace is missing"));
        yield* notifyInvitee(invitation, workspace.name);
        yield* invitationEmailJob.schedule({ invitation_id: invitation.id }, { runAt: at, key: invitation.id });
        return invitation;
      }),
    );
  }).pipe(withSpan("Projects.inviteToWorkspace"));

/** One page of the caller's pending, unexpired invitations, each with its workspace's name, newest first. */
export const listMyInvitations = (
  principal: Principal,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<InvitationToUser>, Forbidden | InvalidCursor, WorkspaceInvitationsRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const before = page.cursor === undefined ? undefined : yield* decodeCursor(IdCursorKey, page.cursor);
    const rows = yield* (yield* WorkspaceInvitationsRepository).listPendingForUser(userId, yield* now, page.limit + 1, before?.[0]);
    return pageFrom(rows, page.limit, (invitation) => [invitation.id]);
  }).pipe(withSpan("Projects.listMyInvitations"));

/** One page of the workspace's invitations in every status, newest first (owner only). */
export const listWorkspaceInvitations = (
  principal: Principal,
  workspaceId: WorkspaceId,
  page: { readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<WorkspaceInvitation>, Forbidden | NotFound | InvalidCursor, WorkspacesRepository | WorkspaceInvitationsRepository> =>
  Effect.gen(function* () {
    yield* requireOwner(principal, workspaceId);
    const before = page.cursor === undefined ? undefined : yield* decodeCursor(IdCursorKey, page.cursor);
    const rows = yield* (yield* WorkspaceInvitationsRepository).listForWorkspace(workspaceId, page.limit + 1, before?.[0]);
    const at = yield* now;
    return pageFrom(rows.map((invitation) => invitationAt(invitation, at)), page.limit, (invitation) => [invitation.id]);
  }).pipe(withSpan("Projects.listWorkspaceInvitations"));


/**
 * The invitee accepts: in one transaction the invitation moves pending -> accepted (conditional,
 * unexpired) and the membership is written with the invited role on the inviting owner's
 * authority, which must still hold (else 409 invitation_withdrawn). A member already (added since
 * by a host allowing direct adds): 409 already_member, and the invitation stays pending.
 */
export const acceptInvitation = (
  principal: Principal,
  id: WorkspaceInvitationId,
): Effect.Effect<
  { invitation: WorkspaceInvitation; member: WorkspaceMember },
  Forbidden | NotFound | InvitationExpired | InvitationNotPending | InvitationWithdrawn | AlreadyMember,
  InvitationServices | ProjectsRepository | ShareLinksRepository | Outbox | Ids | RealtimeBus
> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const invitations = yield* WorkspaceInvitationsRepository;
    const workspaces = yield* WorkspacesRepository;
    const reason = "accepted";
    const { invitation, demoted } = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const invitation = yield* inviteeOnly(userId, id);
        // The workspace's owners lock first, the order every membership change takes.
        yield* workspaces.findWorkspace(invitation.workspaceId, { lock: true });
        const at = yield* now;
        if (!(yield* invitations.decide({ id, status: "accepted", at, by: userId, reason, unexpired: true }))) {
          return yield* Effect.fail(notPending(yield* invitations.find(id), at));
        }
        const written = yield* writeWorkspaceMembership({
          workspaceId: invitation.workspaceId,
          userId,
          role: invitation.role,
          actorId: invitation.invitedBy,
          reason: `accepted invitation ${id}`,
          write: "new",
        }).pipe(
          Effect.catchTags({
            Forbidden: () => Effect.fail(new InvitationWithdrawn({ detail: "The owner who invited you no longer manages members." })),
            // Neither happens to a new membership.
            LastOwner: (error) => Effect.die(error),
            InvitationRequired: (error) => Effect.die(error),
          }),
        );
        const accepted: WorkspaceInvitation = { ...invitation, status: "accepted", decidedAt: at, decidedBy: userId, decidedReason: reason };
        return { invitation: accepted, demoted: written.demoted };
      }),
    );
    if (demoted) yield* announceAccessChanged(userId);
    const member = yield* workspaces.findMember(invitation.workspaceId, userId);
    if (member === null) return yield* Effect.die(new Error("an accepted invitation's membership is missing"));
    return { invitation, member };
  }).pipe(withSpan("Projects.acceptInvitation"));

/** The invitee declines (idempotent: declining a declined invitation answers it again). */
export const declineInvitation = (
  principal: Principal,
  id: WorkspaceInvitationId,
  input: { readonly reason?: string | undefined } = {},
): Effect.Effect<WorkspaceInvitation, Forbidden | NotFound | InvitationExpired | InvitationNotPending, InvitationServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const invitations = yield* WorkspaceInvitationsRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* inviteeOnly(userId, id);
        const at = yield* now;
        yield* invitations.decide({ id, status: "declined", at, by: userId, reason: input.reason ?? "declined", unexpired: true });
        const current = yield* invitations.find(id);
        if (current?.status !== "declined") return yield* Effect.fail(notPending(current, at));
        return current;
      }),
    );
  }).pipe(withSpan("Projects.declineInvitation"));

/**
 * An owner cancels a pending invitation of its workspace (idempotent: a cancelled or expired one
 * answers the same). One already accepted or declined: 409. Another workspace's: NotFound.
 */
export const cancelInvitation = (
  principal: Principal,
  workspaceId: WorkspaceId,
  id: WorkspaceInvitationId,
  input: { readonly reason?: string | undefined } = {},
): Effect.Effect<void, Forbidden | NotFound | InvitationNotPending, InvitationServices> =>
  Effect.gen(function* () {
    const actorId = yield* requireOwner(principal, workspaceId);
    const invitations = yield* WorkspaceInvitationsRepository;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const invitation = yield* invitations.find(id);
        if (invitation === null || invitation.workspaceId !== workspaceId) return yield* Effect.fail(invitationNotFound());
        yield* invitations.decide({ id, status: "cancelled", at: yield* now, by: actorId, reason: input.reason ?? "cancelled by an owner" });
        const current = yield* invitations.find(id);
        if (current?.status !== "cancelled" && current?.status !== "expired") {
          return yield* Effect.fail(new InvitationNotPending({ detail: `The invitation is ${current?.status ?? "gone"}.` }));
        }
      }),
    );
  }).pipe(withSpan("Projects.cancelInvitation"));
