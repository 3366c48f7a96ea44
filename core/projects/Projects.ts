/**
 * Project commands: create (members and owners; the creator becomes admin), read, add or change
 * a project member (project admin; the user must already belong to the workspace, and a guest
 * can never be admin), and revoke a membership (spec rule 7).
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
import { projectAccess, requireRight, requireUser, workspaceAccess, type ProjectAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import { announceAccessChanged, recordMembershipFact } from "./MembershipEvents.js";
import type { Project } from "./model/Project.js";
import type { ProjectMember } from "./model/ProjectMember.js";
import type { WorkspaceMember } from "./model/WorkspaceMember.js";
import { allows, mayCreateProjects, mayHoldProjectRole } from "./Roles.js";
import { ProjectRole } from "./model/Roles.js";
import { revokeShareLinksOfMember, roleChangedReason, shareRight } from "./ShareLinks.js";
import { validName } from "./Workspaces.js";
import { withSpan } from "../kernel/Span.js";
import { ProjectId, WorkspaceId } from "./model/Ids.js";

type Repos = WorkspacesRepository | ProjectsRepository | Transactions | Outbox | Ids;

/** Creates a project in a workspace; the caller becomes its admin. */
export const createProject = (
  principal: Principal,
  workspaceId: WorkspaceId,
  input: { readonly name: string },
): Effect.Effect<{ project: Project; role: ProjectRole }, Forbidden | NotFound | ValidationFailed, Repos> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* workspaceAccess(userId, workspaceId);
    if (!mayCreateProjects(access.membership.role)) {
      return yield* Effect.fail(new Forbidden({ detail: "A guest cannot create projects." }));
    }
    const name = yield* validName(input.name);
    const at = yield* now;
    const project: Project = { id: ProjectId.make(yield* (yield* Ids).next), workspaceId, name, createdBy: userId, createdAt: at };
    const repo = yield* ProjectsRepository;
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* repo.insertProject(project);
        yield* repo.upsertMember({ workspaceId, projectId: project.id, userId, role: "admin", addedBy: userId, createdAt: at });
        yield* recordMembershipFact({
          workspaceId,
          projectId: project.id,
          userId,
          actorId: userId,
          action: "project_member.added",
          role: "admin",
          reason: "created the project",
        });
      }),
    );
    return { project, role: "admin" as const };
  }).pipe(withSpan("Projects.createProject"));

/** Reads a project the caller can see. */
export const getProject = (
  principal: Principal,
  projectId: ProjectId,
): Effect.Effect<ProjectAccess, Forbidden | NotFound, WorkspacesRepository | ProjectsRepository> =>
  Effect.flatMap(requireUser(principal), (userId) => projectAccess(userId, projectId)).pipe(withSpan("Projects.getProject"));

/**
 * Inside a project membership change: locks the actor's and the target's workspace membership
 * rows (each user's access-change lock, see createShareLink), in user id order so two changes
 * never wait on each other in a cycle, then checks again, on what is committed by now, that the
 * actor still manages the project's members. Two admins taking each other's right away at once
 * are decided one after the other: the second is refused (404 or 403). Answers the target's
 * workspace membership.
 */
const lockMembershipChange = (projectId: ProjectId, workspaceId: WorkspaceId, actorId: string, targetId: string) =>
  Effect.gen(function* () {
    const workspaces = yield* WorkspacesRepository;
    let target: WorkspaceMember | null = null;
    for (const userId of [...new Set([actorId, targetId])].sort()) {
      const member = yield* workspaces.findMember(workspaceId, userId, { forUpdate: true });
      if (userId === targetId) target = member;
    }
    yield* requireRight(yield* projectAccess(actorId, projectId), "manage_members");
    return target;
  });

/** True when `after` is a weaker project role than `before` (roles are listed strongest first). */
const isWeaker = (before: ProjectRole, after: ProjectRole): boolean =>
  ProjectRole.literals.indexOf(after) > ProjectRole.literals.indexOf(before);

/**
 * Adds a project member or changes its role (project admin). A role without the share right is
 * a membership change for the user's links (spec, Authentication 4): its live links to the
 * project are revoked in the same transaction (a workspace owner shares everywhere and keeps
 * them); after a downgrade its live subscriptions to the project re-check access.
 */
export const addProjectMember = (
  principal: Principal,
  projectId: ProjectId,
  input: { readonly userId: string; readonly role: ProjectRole; readonly reason?: string | undefined },
): Effect.Effect<{ member: ProjectMember; created: boolean }, Forbidden | NotFound | ValidationFailed, Repos | ShareLinksRepository | RealtimeBus> =>
  Effect.gen(function* () {
    const actorId = yield* requireUser(principal);
    const access = yield* projectAccess(actorId, projectId);
    yield* requireRight(access, "manage_members");
    const { workspaceId } = access.project;
    const repo = yield* ProjectsRepository;
    const member: ProjectMember = { workspaceId, projectId, userId: input.userId, role: input.role, addedBy: actorId, createdAt: yield* now };
    const outcome = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // Locked: a concurrent demotion to guest waits for this decision, or this one sees it.
        const target = yield* lockMembershipChange(projectId, workspaceId, actorId, input.userId);
        if (target === null) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "user_id", message: "must be a member of the workspace" }] }));
        }
        if (!mayHoldProjectRole(target.role, input.role)) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "role", message: "a guest cannot be a project admin" }] }));
        }
        const existing = yield* repo.findMember(projectId, input.userId);
        const result = yield* repo.upsertMember(member);
        yield* recordMembershipFact({
          workspaceId,
          projectId,
          userId: input.userId,
          actorId,
          action: "project_member.added",
          role: input.role,
          reason: input.reason ?? "added by a project admin",
        });
        if (target.role !== "owner" && !allows(input.role, shareRight)) {
          // The links die with the right they came from, in this same transaction.
          yield* revokeShareLinksOfMember({ workspaceId, projectIds: [projectId], userId: input.userId, actorId, reason: roleChangedReason });
        }
        return { result, downgraded: existing !== null && isWeaker(existing.role, input.role) };
      }),
    );
    if (outcome.downgraded) yield* announceAccessChanged(input.userId, projectId);
    const stored = (yield* repo.findMember(projectId, input.userId)) ?? member;
    return { member: stored, created: outcome.result === "created" };
  }).pipe(withSpan("Projects.addProjectMember"));

/**
 * Revokes a project membership (project admin). Idempotent: revoking an absent membership
 * succeeds and records nothing. The removal, its audit record (actor and reason) and
 * MembershipRevoked commit together with the revocation of every live share link the user
 * created for the project; after commit the user's live subscriptions to the
 * project are re-checked and dropped. Its next request to the project answers 404.
 */
export const revokeProjectMembership = (
  principal: Principal,
  projectId: ProjectId,
  input: { readonly userId: string; readonly reason?: string | undefined },
): Effect.Effect<{ removed: boolean }, Forbidden | NotFound, Repos | ShareLinksRepository | RealtimeBus> =>
  Effect.gen(function* () {
    const actorId = yield* requireUser(principal);
    const access = yield* projectAccess(actorId, projectId);
    yield* requireRight(access, "manage_members");
    const repo = yield* ProjectsRepository;
    const removed = yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The user's access-change lock: a link it is creating right now commits first (and is revoked below) or sees the removal.
        yield* lockMembershipChange(projectId, access.project.workspaceId, actorId, input.userId);
        const removed = yield* repo.removeMember(projectId, input.userId);
        if (removed) {
          // The user's links die with its access, in this same transaction.
          yield* revokeShareLinksOfMember({ workspaceId: access.project.workspaceId, projectIds: [projectId], userId: input.userId, actorId });
          yield* recordMembershipFact({
            workspaceId: access.project.workspaceId,
            projectId,
            userId: input.userId,
            actorId,
            action: "project_member.removed",
            role: null,
            reason: input.reason ?? "removed by a project admin",
          });
        }
        return removed;
      }),
    );
    if (removed) yield* announceAccessChanged(input.userId, projectId);
    return { removed };
  }).pipe(withSpan("Projects.revokeProjectMembership"));
