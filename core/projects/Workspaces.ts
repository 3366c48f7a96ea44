/**
 * Workspace commands: create (the caller becomes owner), read, change a member's role (or add
 * one directly, when the host allows it), remove a member. Only owners manage members; removing a member also removes its project memberships
 * in the same transaction and drops its live subscriptions after commit.
 */
import { Effect } from "effect";
import { Forbidden, ValidationFailed, type NotFound } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import type { RealtimeBus } from "../../ports/Realtime.js";
import { Transactions } from "../../ports/Transactions.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import type { ShareLinksRepository } from "../../ports/projects/ShareLinksRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { requireUser, workspaceAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import { announceAccessChanged, recordMembershipFact, recordProjectMembershipFacts } from "./MembershipEvents.js";
import { AlreadyMember, InvitationRequired, LastOwner } from "./Errors.js";
import { WorkspaceMembershipPolicy } from "../../ports/projects/WorkspaceMembershipPolicy.js";
import { WorkspaceInvitationsRepository } from "../../ports/projects/WorkspaceInvitationsRepository.js";
import { mayHoldProjectRole, strongestProjectRoleFor } from "./Roles.js";
import type { Workspace } from "./model/Workspace.js";
import type { WorkspaceMember } from "./model/WorkspaceMember.js";
import { ProjectRole, type WorkspaceRole } from "./model/Roles.js";
import { revokeShareLinksBeyondShareRight, revokeShareLinksOfMember } from "./ShareLinks.js";
import { withSpan } from "../kernel/Span.js";
import { WorkspaceId } from "./model/Ids.js";

type Repos = WorkspacesRepository | WorkspaceInvitationsRepository | ProjectsRepository | Transactions | Outbox | Ids;

/** The reason recorded on the pending invitations of an owner who is demoted or removed. */
export const inviterLostOwnership = "the inviter is no longer an owner";

/** Cancels the pending invitations `userId` sent as an owner of the workspace, in the caller's transaction. */
const cancelInvitationsFrom = (workspaceId: WorkspaceId, userId: string, actorId: string) =>
  Effect.gen(function* () {
    yield* (yield* WorkspaceInvitationsRepository).cancelPendingFrom({ workspaceId, invitedBy: userId, at: yield* now, by: actorId, reason: inviterLostOwnership });
  });

/** A name of 1..200 characters after trimming, else ValidationFailed on `path`. */
export const validName = (name: string, path = "name"): Effect.Effect<string, ValidationFailed> => {
  const trimmed = name.trim();
  return trimmed.length >= 1 && trimmed.length <= 200
    ? Effect.succeed(trimmed)
    : Effect.fail(new ValidationFailed({ errors: [{ path, message: "must be 1 to 200 characters" }] }));
};

/** Creates a workspace owned by the caller. */
export const createWorkspace = (
  principal: Principal,
  input: { readonly name: string },
): Effect.Effect<{ workspace: Workspace; role: WorkspaceRole }, Forbidden | ValidationFailed, Repos> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const name = yield* validName(input.name);
    const at = yield* now;
    const workspace: Workspace = { id: WorkspaceId.make(yield* (yield* Ids).next), name, createdBy: userId, createdAt: at };
    const repo = yield* WorkspacesRepository;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* repo.insertWorkspace(workspace);
        yield* repo.upsertMember({ workspaceId: workspace.id, userId, role: "owner", createdAt: at });
        yield* recordMembershipFact({
          workspaceId: workspace.id,
          projectId: null,
          userId,
          actorId: userId,
          action: "workspace_member.added",
          role: "owner",
          reason: "created the workspace",
        });
      }),
    );
    return { workspace, role: "owner" as const };
  }).pipe(withSpan("Projects.createWorkspace"));

/** Reads a workspace the caller belongs to. */
export const getWorkspace = (
  principal: Principal,
  workspaceId: WorkspaceId,
): Effect.Effect<{ workspace: Workspace; role: WorkspaceRole }, Forbidden | NotFound, WorkspacesRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* workspaceAccess(userId, workspaceId);
    return { workspace: access.workspace, role: access.membership.role };
  }).pipe(withSpan("Projects.getWorkspace"));

/** The caller as a user id, when it is an owner of the workspace (NotFound for a non-member, Forbidden for others). */
export const requireOwner = (principal: Principal, workspaceId: WorkspaceId) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* workspaceAccess(userId, workspaceId);
    if (access.membership.role !== "owner") {
      return yield* Effect.fail(new Forbidden({ detail: "Only a workspace owner manages members." }));
    }
    return userId;
  });

/**
 * Inside a change of the workspace's members: takes the workspace's owners lock (its row) and
 * checks again that the actor is still an owner, as committed by now. Two owners taking each
 * other's ownership away at once are decided one after the other: the second finds itself no
 * longer an owner (403), or the other as the last owner (409), never a workspace without owner.
 */
export const lockOwners = (workspaceId: WorkspaceId, actorId: string): Effect.Effect<void, Forbidden, WorkspacesRepository> =>
  Effect.gen(function* () {
    const repo = yield* WorkspacesRepository;
    yield* repo.findWorkspace(workspaceId, { lock: true });
    const actor = yield* repo.findMember(workspaceId, actorId);
    if (actor?.role !== "owner") return yield* Effect.fail(new Forbidden({ detail: "Only a workspace owner manages members." }));
  });

/** True when going from `before` to `after` takes access away (owner > member > guest). */
const isDemotion = (before: WorkspaceRole, after: WorkspaceRole): boolean =>
  (before === "owner" && after !== "owner") || (before === "member" && after === "guest");

/**
 * Lowers every project role of `userId` in the workspace that `workspaceRole` may not hold to the
 * strongest one it may (a guest's project-admin rows become contributor), each audited as a
 * project membership change; call inside the demotion's transaction. One UPDATE of the lowered
 * rows, then their facts in statements that do not grow with their number.
 */
const capProjectRoles = (req: {
  readonly workspaceId: WorkspaceId;
  readonly userId: string;
  readonly workspaceRole: WorkspaceRole;
  readonly actorId: string;
  readonly reason: string;
}): Effect.Effect<void, never, ProjectsRepository | Outbox | Ids> =>
  Effect.gen(function* () {
    const cap = strongestProjectRoleFor(req.workspaceRole);
    const beyond = ProjectRole.literals.filter((role) => !mayHoldProjectRole(req.workspaceRole, role));
    if (beyond.length === 0) return;
    const lowered = yield* (yield* ProjectsRepository).lowerRolesInWorkspace(req.userId, req.workspaceId, beyond, cap);
    yield* recordProjectMembershipFacts(
      { workspaceId: req.workspaceId, userId: req.userId, actorId: req.actorId, action: "project_member.added", role: cap, reason: req.reason },
      lowered,
    );
  });

/** Which memberships a {@link writeWorkspaceMembership} may write. */
export type MembershipWrite = "any" | "existing" | "new";

/**
 * Writes a workspace membership with `role` for `userId` (a new one, or a role change) on the
 * authority of `actorId`, in the caller's transaction: the path every membership takes (an
 * owner's add or role change, an accepted invitation). It takes the workspace's owners lock and
 * checks that the actor is still an owner (Forbidden), keeps the last owner (LastOwner), and
 * audits the change and appends WorkspaceMembershipGranted. `write`: "existing" refuses a new
 * membership (InvitationRequired), "new" an existing one (AlreadyMember). A demotion is a
 * membership change (spec, Authentication 4): in the same transaction the user's links to
 * projects it may no longer share are revoked and project roles it may no longer hold are
 * lowered (a guest is never project admin); the caller announces `demoted` after commit.
 */
export const writeWorkspaceMembership = (req: {
  readonly workspaceId: WorkspaceId;
  readonly userId: string;
  readonly role: WorkspaceRole;
  readonly actorId: string;
  readonly reason: string;
  readonly write: MembershipWrite;
}): Effect.Effect<
  { result: "created" | "updated"; demoted: boolean },
  Forbidden | LastOwner | InvitationRequired | AlreadyMember,
  Repos | ShareLinksRepository
> =>
  Effect.gen(function* () {
    const { workspaceId, userId, role, actorId, reason } = req;
    const repo = yield* WorkspacesRepository;
    yield* lockOwners(workspaceId, actorId);
    const existing = yield* repo.findMember(workspaceId, userId, { forUpdate: true });
    if (existing === null && req.write === "existing") {
      const invitations = `/v1/workspaces/${workspaceId}/invitations`;
      return yield* Effect.fail(
        new InvitationRequired({ detail: `A user joins a workspace by accepting an invitation: POST ${invitations}.`, problemExtensions: { invitations } }),
      );
    }
    if (existing !== null && req.write === "new") return yield* Effect.fail(new AlreadyMember({ detail: "The user is already a member of the workspace." }));
    if (existing?.role === "owner" && role !== "owner" && (yield* repo.countOwners(workspaceId)) <= 1) {
      return yield* Effect.fail(new LastOwner({ detail: "A workspace keeps at least one owner." }));
    }
    const demoted = existing !== null && isDemotion(existing.role, role);
    // Project roles the new workspace role may not hold are lowered before it is stored (the
    // database refuses a guest who still administers a project, projects migration 15).
    if (demoted) {
      yield* capProjectRoles({ workspaceId, userId, workspaceRole: role, actorId, reason });
    }
    // An owner no longer: the invitations they sent as one end with their ownership.
    if (existing?.role === "owner" && role !== "owner") yield* cancelInvitationsFrom(workspaceId, userId, actorId);
    const result = yield* repo.upsertMember({ workspaceId, userId, role, createdAt: yield* now });
    yield* recordMembershipFact({ workspaceId, projectId: null, userId, actorId, action: "workspace_member.added", role, reason });
    if (demoted) {
      // The links die with the access they came from, in this same transaction.
      yield* revokeShareLinksBeyondShareRight({ workspaceId, userId, actorId });
    }
    return { result, demoted };
  });

/**
 * Changes a member's role (owner only), or adds a non-member directly when the host composes the
 * module with `directMemberAdds` (WorkspaceMembershipPolicy); otherwise a non-member answers
 * InvitationRequired (409): it joins by accepting an invitation (Invitations.ts).
 */
export const addWorkspaceMember = (
  principal: Principal,
  workspaceId: WorkspaceId,
  input: { readonly userId: string; readonly role: WorkspaceRole; readonly reason?: string | undefined },
): Effect.Effect<
  { member: WorkspaceMember; created: boolean },
  Forbidden | NotFound | LastOwner | InvitationRequired,
  Repos | ShareLinksRepository | RealtimeBus | WorkspaceMembershipPolicy
> =>
  Effect.gen(function* () {
    const actorId = yield* requireOwner(principal, workspaceId);
    const { directMemberAdds } = yield* WorkspaceMembershipPolicy;
    const repo = yield* WorkspacesRepository;
    const outcome = yield* (yield* Transactions).run(
      writeWorkspaceMembership({
        workspaceId,
        userId: input.userId,
        role: input.role,
        actorId,
        reason: input.reason ?? "added by an owner",
        write: directMemberAdds ? "any" : "existing",
      }).pipe(Effect.catchTag("AlreadyMember", Effect.die)),
    );
    if (outcome.demoted) yield* announceAccessChanged(input.userId);
    const stored = (yield* repo.findMember(workspaceId, input.userId)) ?? { workspaceId, userId: input.userId, role: input.role, createdAt: yield* now };
    return { member: stored, created: outcome.result === "created" };
  }).pipe(withSpan("Projects.addWorkspaceMember"));

/** Removes a member, its project memberships and its share links (owner only; idempotent). */
export const removeWorkspaceMember = (
  principal: Principal,
  workspaceId: WorkspaceId,
  input: { readonly userId: string; readonly reason?: string | undefined },
): Effect.Effect<void, Forbidden | NotFound | LastOwner, Repos | ShareLinksRepository | RealtimeBus> =>
  Effect.gen(function* () {
    // A member may always leave (nobody is kept in a workspace another tenant added them to);
    // anyone else is removed by an owner.
    const callerId = yield* requireUser(principal);
    const leaving = input.userId.toLowerCase() === callerId;
    const actorId = leaving ? (yield* workspaceAccess(callerId, workspaceId), callerId) : yield* requireOwner(principal, workspaceId);
    const repo = yield* WorkspacesRepository;
    const projects = yield* ProjectsRepository;
    const reason = input.reason ?? (leaving ? "left the workspace" : "removed by an owner");
    const removed = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The workspace's owners lock: a leaving owner and an owner's removal count owners in turn.
        if (leaving) yield* repo.findWorkspace(workspaceId, { lock: true });
        else yield* lockOwners(workspaceId, actorId);
        // The user's access-change lock (see createShareLink).
        const existing = yield* repo.findMember(workspaceId, input.userId, { forUpdate: true });
        if (existing === null) return false;
        if (existing.role === "owner" && (yield* repo.countOwners(workspaceId)) <= 1) {
          return yield* Effect.fail(new LastOwner({ detail: "A workspace keeps at least one owner." }));
        }
        const projectIds = yield* projects.removeMembershipsInWorkspace(workspaceId, input.userId);
        // Every link the user created in the workspace (an owner creates them without project memberships).
        yield* revokeShareLinksOfMember({ workspaceId, userId: input.userId, actorId });
        yield* recordProjectMembershipFacts({ workspaceId, userId: input.userId, actorId, action: "project_member.removed", role: null, reason }, projectIds);
        if (existing.role === "owner") yield* cancelInvitationsFrom(workspaceId, input.userId, actorId);
        yield* repo.removeMember(workspaceId, input.userId);
        yield* recordMembershipFact({ workspaceId, projectId: null, userId: input.userId, actorId, action: "workspace_member.removed", role: null, reason });
        return true;
      }),
    );
    if (removed) yield* announceAccessChanged(input.userId);
  }).pipe(withSpan("Projects.removeWorkspaceMember"));
