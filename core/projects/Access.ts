/**
 * Object-level authorization of the project module (spec rules 1-3): every command passes
 * here. Workspace membership is checked first, then project membership; anything the caller
 * may not see answers NotFound exactly like an unknown id, so existence never leaks. Forbidden
 * (403) only where the caller already sees the object but its role lacks the right.
 */
import { Effect } from "effect";
import { Forbidden, NotFound } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import { ProjectsRepository, type ProjectWithRoles } from "../../ports/projects/ProjectsRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import type { ProjectScope } from "../../ports/projects/ProjectScope.js";
import type { Project } from "./model/Project.js";
import type { Task } from "./model/Task.js";
import type { Workspace } from "./model/Workspace.js";
import type { WorkspaceMember } from "./model/WorkspaceMember.js";
import { allows, type ProjectRight } from "./Roles.js";
import { type ProjectRole, type WorkspaceRole } from "./model/Roles.js";
import type { ProjectId, TaskId, WorkspaceId } from "./model/Ids.js";

/** The caller as a user id; only users act in this module. */
export const requireUser = (principal: Principal): Effect.Effect<string, Forbidden> =>
  principal.kind === "user"
    ? Effect.succeed(principal.userId)
    : Effect.fail(new Forbidden({ detail: "Only a signed-in user can use the project module." }));

/** What the caller holds on one workspace. */
export interface WorkspaceAccess {
  readonly workspace: Workspace;
  readonly membership: WorkspaceMember;
}

/** What the caller holds on one project: its effective project role. */
export interface ProjectAccess {
  readonly project: Project;
  readonly workspaceRole: WorkspaceRole;
  readonly role: ProjectRole;
}

const notFound = (resource: string) => new NotFound({ resource, detail: `No such ${resource}.` });

/** The caller's workspace membership, or NotFound when it has none (or the workspace is unknown). */
export const workspaceAccess = (
  userId: string,
  workspaceId: WorkspaceId,
): Effect.Effect<WorkspaceAccess, NotFound, WorkspacesRepository> =>
  Effect.gen(function* () {
    const repo = yield* WorkspacesRepository;
    const membership = yield* repo.findMember(workspaceId, userId);
    const workspace = membership === null ? null : yield* repo.findWorkspace(workspaceId);
    if (membership === null || workspace === null) return yield* Effect.fail(notFound("workspace"));
    return { workspace, membership };
  });

/**
 * The caller's effective role on a project: a workspace owner is admin everywhere; others need
 * a project membership (a guest reaches only projects shared with it). Else NotFound(`resource`).
 */
export const projectAccess = (
  userId: string,
  projectId: ProjectId,
  resource = "project",
): Effect.Effect<ProjectAccess, NotFound, ProjectsRepository> =>
  Effect.gen(function* () {
    // The project and both memberships in one read (one statement on SQL).
    const found = yield* (yield* ProjectsRepository).findProjectWithRoles(projectId, userId);
    const access = found === null ? null : accessFrom(found);
    if (access === null) return yield* Effect.fail(notFound(resource));
    return access;
  });

/**
 * The effective role from the two memberships: a workspace owner is admin everywhere; others
 * need a project membership (a guest reaches only projects shared with it). Null: not visible.
 */
const accessFrom = ({ project, workspaceRole, projectRole }: ProjectWithRoles): ProjectAccess | null => {
  if (workspaceRole === null) return null;
  if (workspaceRole === "owner") return { project, workspaceRole, role: "admin" };
  return projectRole === null ? null : { project, workspaceRole, role: projectRole };
};

/** Fails Forbidden unless the access allows `right`. */
export const requireRight = (access: ProjectAccess, right: ProjectRight): Effect.Effect<void, Forbidden> =>
  allows(access.role, right)
    ? Effect.void
    : Effect.fail(new Forbidden({ detail: `Your project role (${access.role}) does not allow this.` }));

/** A task with the caller's access to its project; NotFound when either is not visible. */
export const taskAccess = (
  userId: string,
  taskId: TaskId,
): Effect.Effect<{ readonly task: Task; readonly access: ProjectAccess }, NotFound, TasksRepository> =>
  Effect.gen(function* () {
    // The task, its project and both memberships in one read (one statement on SQL).
    const found = yield* (yield* TasksRepository).findTaskWithRoles(taskId, userId);
    if (found === null) return yield* Effect.fail(notFound("task"));
    const access = accessFrom(found);
    if (access === null) return yield* Effect.fail(notFound("task"));
    return { task: found.task, access };
  });

/** Ids of every project the user can see (by id): all projects of workspaces it owns, plus its memberships. */
export const visibleProjectIds = (
  userId: string,
  workspaceId?: WorkspaceId,
): Effect.Effect<ReadonlyArray<ProjectId>, never, ProjectsRepository> =>
  Effect.flatMap(ProjectsRepository, (projects) => projects.visibleProjectIds(userId, workspaceId));

/** Up to this many visible projects, a read binds their ids; beyond, it filters by membership inside the query. */
export const listedProjectsAtMost = 100;

/**
 * The projects a read of the caller covers (optionally within one workspace): their ids when
 * there are at most `listedProjectsAtMost` (the common case, an index seek per project), else
 * the caller's memberships, joined inside the query. Either way one bounded statement here.
 */
export const visibleProjectScope = (
  userId: string,
  workspaceId?: WorkspaceId,
): Effect.Effect<ProjectScope, never, ProjectsRepository> =>
  Effect.flatMap(ProjectsRepository, (projects) =>
    Effect.map(projects.visibleProjectIds(userId, workspaceId, listedProjectsAtMost + 1), (ids): ProjectScope =>
      ids.length <= listedProjectsAtMost ? { projectIds: ids } : { visibleTo: userId, workspaceId },
    ),
  );
