/**
 * Soft delete and restore of a task (spec rule 8): a deleted task keeps its row, history and
 * comments for restore and audit, disappears from lists, and refuses changes (409 task_deleted)
 * until restored. Both are idempotent and advance the version only when the state changes; each
 * change records its actor and reason (spec: deletion actions record actor and reason). An
 * expected version (If-Match, optional) is checked first: a stale one answers 412 with the
 * current task even when the change was already made; the conditional UPDATE decides a race.
 */
import { Effect } from "effect";
import type { Forbidden, NotFound, VersionMismatch } from "../kernel/Errors.js";
import { advance, staleWrite, versionMismatch } from "../kernel/Versioning.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { requireRight, requireUser, taskAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import type { TaskServices } from "./CreateTask.js";
import type { Task } from "./model/Task.js";
import { recordTaskFact } from "./TaskFacts.js";
import { withSpan } from "../kernel/Span.js";
import type { TaskId } from "./model/Ids.js";

/** The reason recorded when the caller gives none. */
export const defaultDeletionReason = "deleted by a project member";
/** The reason recorded on a restoration when the caller gives none. */
export const defaultRestorationReason = "restored by a project member";

/** The caller's reason for a deletion or restoration, and the version it is based on (If-Match). */
export interface TrashInput {
  readonly reason?: string | undefined;
  /** The task version the caller saw; a stale one answers 412. Without it the change is unconditional. */
  readonly expectedVersion?: number | undefined;
}

const setDeleted = (principal: Principal, taskId: TaskId, deleted: boolean, reason: string, expectedVersion: number | undefined) =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "edit_tasks");
    const repo = yield* TasksRepository;
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const current = yield* repo.findTask(taskId);
        if (current === null) return yield* staleWrite("task", Effect.succeed(undefined));
        if (expectedVersion !== undefined && expectedVersion !== current.version) return yield* Effect.fail(versionMismatch(current, expectedVersion));
        if ((current.deletedAt !== null) === deleted) return current;
        const at = yield* now;
        const next: Task = { ...current, deletedAt: deleted ? at : null, version: advance(current.version), updatedAt: at };
        if (!(yield* repo.updateTask(next, current.version))) {
          return yield* staleWrite("task", Effect.map(repo.findTask(taskId), (t) => t ?? undefined), current.version);
        }
        yield* recordTaskFact({ task: next, actorId: userId, kind: deleted ? "task.deleted" : "task.restored", data: { reason } });
        return next;
      }),
    );
  });

/** Moves a task to the trash (project contributor); its TaskEvent records the actor and reason. */
export const deleteTask = (
  principal: Principal,
  taskId: TaskId,
  input: TrashInput = {},
): Effect.Effect<Task, Forbidden | NotFound | VersionMismatch, TaskServices> =>
  setDeleted(principal, taskId, true, input.reason ?? defaultDeletionReason, input.expectedVersion).pipe(withSpan("Projects.deleteTask"));

/** Takes a task out of the trash (project contributor); its TaskEvent records the actor and reason. */
export const restoreTask = (
  principal: Principal,
  taskId: TaskId,
  input: TrashInput = {},
): Effect.Effect<Task, Forbidden | NotFound | VersionMismatch, TaskServices> =>
  setDeleted(principal, taskId, false, input.reason ?? defaultRestorationReason, input.expectedVersion).pipe(withSpan("Projects.restoreTask"));
