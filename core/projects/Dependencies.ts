/**
 * Task dependencies: "task A is blocked by task B", both in the same project. Adding an edge
 * that would close a cycle answers 409 dependency_cycle; the check and the insert run in one
 * transaction under a per-project lock, so two concurrent edges (A by B, B by A) cannot both
 * land. Removing is idempotent (204).
 */
import { Effect } from "effect";
import { Conflict, ValidationFailed, type Forbidden, type NotFound } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { DependenciesRepository } from "../../ports/projects/DependenciesRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { requireRight, requireUser, taskAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import type { TaskServices } from "./CreateTask.js";
import { TaskDeleted } from "./Errors.js";
import { withSpan } from "../kernel/Span.js";
import type { TaskId } from "./model/Ids.js";

/** Services of the dependency commands. */
export type DependencyServices = TaskServices | DependenciesRepository;

/** Most edges one task may have (either direction). */
export const maxEdgesPerTask = 200;

/** Records that `taskId` is blocked by `blockedById` (task editors). Answers whether it was new. */
export const addDependency = (
  principal: Principal,
  taskId: TaskId,
  blockedById: TaskId,
): Effect.Effect<boolean, Forbidden | NotFound | ValidationFailed | Conflict | TaskDeleted, DependencyServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { task, access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "edit_tasks");
    if (task.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
    const blocker = yield* (yield* TasksRepository).findTask(blockedById);
    // Another project's (or workspace's) task is "not a task of this project", never "exists".
    if (blocker === null || blocker.projectId !== task.projectId) {
      return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "blocked_by_id", message: "must be a task of the same project" }] }));
    }
    if (blockedById === taskId) return yield* Effect.fail(new Conflict({ code: "dependency_cycle", detail: "A task cannot block itself." }));
    // A blocker in the trash would hold a live task back by something no list shows.
    if (blocker.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The blocking task is in the trash; restore it first." }));
    const repo = yield* DependenciesRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* repo.lockProject(task.projectId);
        // The new edge task -> blocker closes a cycle iff the task is already reachable from the blocker.
        if (yield* repo.reaches(blockedById, taskId)) {
          return yield* Effect.fail(new Conflict({ code: "dependency_cycle", detail: "This dependency would create a cycle." }));
        }
        // Both ends gain an edge, and each end's lists are read whole (at most the bound).
        if ((yield* repo.countEdges(taskId)) >= maxEdgesPerTask || (yield* repo.countEdges(blockedById)) >= maxEdgesPerTask) {
          return yield* Effect.fail(new ValidationFailed({ errors: [{ path: "blocked_by_id", message: `a task has at most ${maxEdgesPerTask} dependencies` }] }));
        }
        const at = yield* now;
        const added = yield* repo.insertDependency({
          workspaceId: task.workspaceId,
          projectId: task.projectId,
          taskId,
          blockedById,
          createdBy: userId,
          createdAt: at,
        });
        if (added) {
          yield* repo.appendAudit({
            id: yield* (yield* Ids).next,
            workspaceId: task.workspaceId,
            projectId: task.projectId,
            taskId,
            blockedById,
            actorId: userId,
            action: "dependency.added",
            reason: "added by a project member",
            createdAt: at,
          });
        }
        return added;
      }),
    );
  }).pipe(withSpan("Projects.addDependency"));

/** Removes an edge (task editors), recording actor and reason (`reason`, else a default); idempotent. */
export const removeDependency = (
  principal: Principal,
  taskId: TaskId,
  blockedById: TaskId,
  input: { readonly reason?: string | undefined } = {},
): Effect.Effect<void, Forbidden | NotFound, DependencyServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { task, access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "edit_tasks");
    const repo = yield* DependenciesRepository;
    // The removal and its audit entry (actor and reason) commit together; removing an edge that
    // is not there records nothing.
    yield* (yield* Transactions).run(
      Effect.gen(function* () {
        if (!(yield* repo.deleteDependency(taskId, blockedById))) return;
        yield* repo.appendAudit({
          id: yield* (yield* Ids).next,
          workspaceId: task.workspaceId,
          projectId: task.projectId,
          taskId,
          blockedById,
          actorId: userId,
          action: "dependency.removed",
          reason: input.reason ?? "removed by a project member",
          createdAt: yield* now,
        });
      }),
    );
  });

/** A visible task's blockers and the tasks it blocks. */
export const listDependencies = (principal: Principal, taskId: TaskId) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "read");
    return yield* (yield* DependenciesRepository).dependenciesOf(taskId);
  });
