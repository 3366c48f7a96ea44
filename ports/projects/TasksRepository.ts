/** Storage of tasks and their append-only task events (the activity feed). */
import { Context, Effect } from "effect";
import type { Task, TaskEvent } from "../../core/projects/Records.js";
import type { TaskStatus } from "../../core/projects/TaskWorkflow.js";

/** A keyset position in a project's task list. */
export interface RankKey {
  readonly rank: string;
  readonly id: string;
}

/** A keyset position in the activity feed (newest first). */
export interface ActivityKey {
  readonly createdAt: string;
  readonly id: string;
}

/** The task repository. */
export interface TasksRepository {
  readonly insertTask: (task: Task) => Effect.Effect<void>;
  readonly findTask: (id: string) => Effect.Effect<Task | null>;
  /**
   * Writes `task` only if the stored version is still `expectedVersion` (the database decides
   * the race: `WHERE id = ? AND version = ?`); false when it moved or the task is gone.
   */
  readonly updateTask: (task: Task, expectedVersion: number) => Effect.Effect<boolean>;
  /** The greatest rank of the project's tasks (deleted ones included), or null. */
  readonly lastRank: (projectId: string) => Effect.Effect<string | null>;
  /** Live tasks of a project ordered by (rank, id), strictly after `after`, at most `limit`. */
  readonly listTasks: (req: {
    readonly projectId: string;
    readonly status?: TaskStatus | undefined;
    readonly after?: RankKey | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Task>>;
  /** Appends an activity fact; the table refuses UPDATE and DELETE. */
  readonly appendEvent: (event: TaskEvent) => Effect.Effect<void>;
  /**
   * Events of the given projects, newest first by (created_at, id), strictly before `before`,
   * at most `limit`. The project filter is applied in the query, before the limit.
   */
  readonly listEvents: (req: {
    readonly projectIds: ReadonlyArray<string>;
    readonly before?: ActivityKey | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<TaskEvent>>;
}
export const TasksRepository = Context.GenericTag<TasksRepository>("domainkit/projects/TasksRepository");
