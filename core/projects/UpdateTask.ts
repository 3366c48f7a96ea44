/**
 * Command: PATCH a task with the expected version (spec rule 2). Checks, in order: visibility
 * (404), role (403), If-Match present (428), field validity (422), expected version (412 with
 * the current task), then the state rules (409: task in trash, illegal workflow move). The
 * conditional UPDATE `WHERE id = ? AND version = ?` decides a race in the database; the loser
 * reloads and answers 412. The update, its TaskEvent and its outbox row commit together.
 */
import { Effect } from "effect";
import { PreconditionRequired, type Forbidden, type NotFound, type ValidationFailed, type VersionMismatch } from "../kernel/Errors.js";
import { advance, expectVersion, staleWrite } from "../kernel/Versioning.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { requireRight, requireUser, taskAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import { validAssignee, validTitle, type TaskServices } from "./CreateTask.js";
import { TaskDeleted, type IllegalStatusTransition } from "./Errors.js";
import type { Task } from "./model/Task.js";
import { recordTaskFact } from "./TaskFacts.js";
import { moveStatus } from "./TaskWorkflow.js";
import { type TaskStatus } from "./model/Task.js";
import { withSpan } from "../kernel/Span.js";
import type { TaskId } from "./model/Ids.js";

/** The fields a PATCH may change; absent fields stay as they are. */
export interface TaskPatch {
  readonly title?: string | undefined;
  readonly status?: TaskStatus | undefined;
  readonly assigneeId?: string | null | undefined;
}

/** Every error of a task update. */
export type UpdateTaskError =
  | Forbidden
  | NotFound
  | PreconditionRequired
  | ValidationFailed
  | VersionMismatch
  | TaskDeleted
  | IllegalStatusTransition;

/** Applies `patch` to the task if its version is still `expectedVersion`. */
export const updateTask = (
  principal: Principal,
  taskId: TaskId,
  expectedVersion: number | undefined,
  patch: TaskPatch,
): Effect.Effect<Task, UpdateTaskError, TaskServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const repo = yield* TasksRepository;
    // One read of the task serves the access check and the version check: both run in the
    // transaction, in the order the specification gives (404, 403, 428, 422, 412, 409).
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const { task: current, access } = yield* taskAccess(userId, taskId);
        yield* requireRight(access, "edit_tasks");
        if (expectedVersion === undefined) {
          return yield* Effect.fail(new PreconditionRequired({ detail: "PATCH /v1/tasks/:id requires If-Match with the task version." }));
        }
        const title = patch.title === undefined ? undefined : yield* validTitle(patch.title);
        const assigneeId = patch.assigneeId === undefined ? undefined : yield* validAssignee(access.project.id, patch.assigneeId);
        yield* expectVersion(current, expectedVersion);
        if (current.deletedAt !== null) {
          return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
        }
        const status = patch.status === undefined ? current.status : yield* moveStatus(current.status, patch.status);
        const changes: Record<string, { from: unknown; to: unknown }> = {};
        if (title !== undefined && title !== current.title) changes.title = { from: current.title, to: title };
        if (status !== current.status) changes.status = { from: current.status, to: status };
        if (assigneeId !== undefined && assigneeId !== current.assigneeId) changes.assignee_id = { from: current.assigneeId, to: assigneeId };
        // Nothing changes: no new version, no event.
        if (Object.keys(changes).length === 0) return current;
        const next: Task = {
          ...current,
          title: title ?? current.title,
          status,
          assigneeId: assigneeId === undefined ? current.assigneeId : assigneeId,
          version: advance(current.version),
          updatedAt: yield* now,
        };
        if (!(yield* repo.updateTask(next, expectedVersion))) {
          return yield* staleWrite("task", Effect.map(repo.findTask(taskId), (t) => t ?? undefined), expectedVersion);
        }
        yield* recordTaskFact({ task: next, actorId: userId, kind: "task.updated", data: { changes } });
        return next;
      }),
    );
  }).pipe(withSpan("Projects.updateTask"));
