/** Command: create a task in a project (project contributor; spec POST /v1/projects/:id/tasks). */
import { Effect } from "effect";
import { ValidationFailed, type Forbidden, type NotFound } from "../kernel/Errors.js";
import { initialVersion } from "../kernel/Versioning.js";
import { Ids } from "../../ports/Ids.js";
import type { Outbox } from "../../ports/Outbox.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess, requireRight, requireUser } from "./Access.js";
import { now } from "../kernel/Clock.js";
import { rankBetween } from "./Rank.js";
import type { Task } from "./model/Task.js";
import { recordTaskFact } from "./TaskFacts.js";
import { initialStatus } from "./TaskWorkflow.js";
import { type TaskStatus } from "./model/Task.js";
import { withSpan } from "../kernel/Span.js";
import { ProjectId, TaskId } from "./model/Ids.js";

/** Services the task commands use. */
export type TaskServices = WorkspacesRepository | ProjectsRepository | TasksRepository | Transactions | Outbox | Ids;

/** A title of 1..500 characters after trimming. */
export const validTitle = (title: string): Effect.Effect<string, ValidationFailed> => {
  const trimmed = title.trim();
  return trimmed.length >= 1 && trimmed.length <= 500
    ? Effect.succeed(trimmed)
    : Effect.fail(new ValidationFailed({ errors: [{ path: "title", message: "must be 1 to 500 characters" }] }));
};

/** An assignee must be able to see the project; anyone else is a 422 (existence is not revealed). */
export const validAssignee = (projectId: ProjectId, assigneeId: string | null) =>
  assigneeId === null
    ? Effect.succeed(null)
    : projectAccess(assigneeId, projectId).pipe(
        Effect.as(assigneeId),
        Effect.catchTag("NotFound", () =>
          Effect.fail(new ValidationFailed({ errors: [{ path: "assignee_id", message: "must be a member of the project" }] })),
        ),
      );

/** Creates a task at the end of the project's order. */
export const createTask = (
  principal: Principal,
  projectId: ProjectId,
  input: { readonly title: string; readonly status?: TaskStatus | undefined; readonly assigneeId?: string | null | undefined },
): Effect.Effect<Task, Forbidden | NotFound | ValidationFailed, TaskServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* projectAccess(userId, projectId);
    yield* requireRight(access, "edit_tasks");
    const title = yield* validTitle(input.title);
    const assigneeId = yield* validAssignee(projectId, input.assigneeId ?? null);
    const repo = yield* TasksRepository;
    const id = TaskId.make(yield* (yield* Ids).next);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        const at = yield* now;
        const task: Task = {
          id,
          workspaceId: access.project.workspaceId,
          projectId,
          title,
          status: input.status ?? initialStatus,
          assigneeId,
          // Two concurrent creates may pick the same key; the (rank, id) order stays total.
          rank: rankBetween(yield* repo.lastRank(projectId), null),
          version: initialVersion,
          deletedAt: null,
          createdBy: userId,
          createdAt: at,
          updatedAt: at,
        };
        yield* repo.insertTask(task);
        yield* recordTaskFact({ task, actorId: userId, kind: "task.created" });
        return task;
      }),
    );
  }).pipe(withSpan("Projects.createTask"));
