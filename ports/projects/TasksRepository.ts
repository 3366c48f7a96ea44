/** Storage of tasks and their append-only task events (the activity feed). */
import { Context, Effect } from "effect";
import type { Task } from "../../core/projects/model/Task.js";
import type { TaskEvent } from "../../core/projects/model/TaskEvent.js";
import type { TaskStatus } from "../../core/projects/model/Task.js";
import type { ProjectWithRoles } from "./ProjectsRepository.js";
import type { ProjectScope } from "./ProjectScope.js";

/** A keyset position in a project's task list. */
export interface RankKey {
  readonly rank: string;
  readonly id: string;
}

/** What a task list can be sorted by (a saved view's sort). */
export type TaskSortBy = "rank" | "created_at" | "updated_at" | "title" | "status";

/**
 * A total order of a task list: the sort key, then (for `status`, the board's rank), then id;
 * `desc` reverses every component, so a descending list is exactly the ascending one reversed.
 */
export interface TaskOrder {
  readonly by: TaskSortBy;
  readonly direction: "asc" | "desc";
}

/**
 * A keyset position in an ordered task list: the last row's sort values and its id. The values
 * per order: rank → [rank]; created_at / updated_at → [ISO time]; title → [title];
 * status → [status, rank].
 */
export interface TaskPosition {
  readonly values: ReadonlyArray<string>;
  readonly id: string;
}

/** Filters applied in the query, before the limit (a saved view's filters). */
export interface TaskFilter {
  /** Any of these statuses. */
  readonly statuses?: ReadonlyArray<TaskStatus> | undefined;
  /** Assigned to this user, or unassigned when `id` is null. */
  readonly assignee?: { readonly id: string | null } | undefined;
  /** Having this value of this custom field. */
  readonly field?: { readonly fieldId: string; readonly value: string | number } | undefined;
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
   * The task, its project and `userId`'s workspace and project roles there, read together (one
   * statement on SQL: every task command's access check starts here); null for an unknown task.
   */
  readonly findTaskWithRoles: (taskId: string, userId: string) => Effect.Effect<{ readonly task: Task } & ProjectWithRoles | null>;
  /**
   * Writes `task` only if the stored version is still `expectedVersion` (the database decides
   * the race: `WHERE id = ? AND version = ?`); false when it moved or the task is gone.
   */
  readonly updateTask: (task: Task, expectedVersion: number) => Effect.Effect<boolean>;
  /** The greatest rank of the project's tasks (deleted ones included), or null. */
  readonly lastRank: (projectId: string) => Effect.Effect<string | null>;
  /**
   * Live tasks of a project in `order` (default: rank ascending, i.e. (rank, id)), filtered by
   * `status` and `filter` inside the query, strictly after `after`, at most `limit`.
   */
  readonly listTasks: (req: {
    readonly projectId: string;
    readonly status?: TaskStatus | undefined;
    readonly filter?: TaskFilter | undefined;
    readonly order?: TaskOrder | undefined;
    /** A RankKey for the default order, a TaskPosition for any order. */
    readonly after?: RankKey | TaskPosition | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Task>>;
  /** Appends an activity fact; the table refuses UPDATE and DELETE. */
  readonly appendEvent: (event: TaskEvent) => Effect.Effect<void>;
  /**
   * Events of the scope's projects, newest first by (created_at, id), strictly before `before`,
   * at most `limit`. The project filter is applied in the query, before the limit.
   */
  readonly listEvents: (req: {
    readonly scope: ProjectScope;
    readonly before?: ActivityKey | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<TaskEvent>>;
}
export const TasksRepository = Context.GenericTag<TasksRepository>("domainkit/projects/TasksRepository");
