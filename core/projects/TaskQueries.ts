/**
 * Task reads: one task (deleted ones too, so a client can see and restore them) and the
 * project's live task list, keyset-paginated with the kernel cursor codec: by (rank, id), or in
 * a saved view's filters and sort. A view's cursor carries the view and its sort besides the
 * sort keys, so a cursor of another list is refused (400) instead of seeking the wrong order.
 */
import { Effect, Schema } from "effect";
import { decodeCursor, encodeCursor, maxCursorLength } from "../kernel/Cursor.js";
import { pageFrom, type Page } from "../kernel/Page.js";
import { InvalidCursor, NotFound, type Forbidden } from "../kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import type { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { SavedViewsRepository } from "../../ports/projects/SavedViewsRepository.js";
import { TasksRepository, type TaskFilter, type TaskOrder, type TaskPosition } from "../../ports/projects/TasksRepository.js";
import type { WorkspacesRepository } from "../../ports/projects/WorkspacesRepository.js";
import { projectAccess, requireRight, requireUser, taskAccess } from "./Access.js";
import type { Task } from "./model/Task.js";
import type { SavedView } from "./model/SavedView.js";
import { TaskStatus } from "./model/Task.js";
import { withSpan } from "../kernel/Span.js";
import type { ProjectId, SavedViewId, TaskId } from "./model/Ids.js";

type ReadServices = WorkspacesRepository | ProjectsRepository | TasksRepository;

/** Reads a task the caller can see. */
export const getTask = (principal: Principal, taskId: TaskId): Effect.Effect<Task, Forbidden | NotFound, ReadServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { task, access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "read");
    return task;
  }).pipe(withSpan("Projects.getTask"));

/** The key of a list in rank order: `[rank, id]`. */
export const RankCursor = Schema.Tuple(Schema.String, Schema.String);
const AnyCursor = Schema.Array(Schema.String);

/** A cursor that decodes but was written by another list (another view, sort or the plain list). */
const foreignCursor = () =>
  new InvalidCursor({ detail: "This cursor belongs to another task list (another view or sort order); request the first page again without a cursor." });

/** The project's live tasks in (rank, id) order, one page after `cursor`. */
export const listTasks = (
  principal: Principal,
  projectId: ProjectId,
  query: { readonly status?: TaskStatus | undefined; readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<Task>, Forbidden | NotFound | InvalidCursor, ReadServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* projectAccess(userId, projectId);
    yield* requireRight(access, "read");
    const after =
      query.cursor === undefined
        ? undefined
        : yield* decodeCursor(AnyCursor, query.cursor).pipe(
            Effect.flatMap((keys) => (keys.length === 2 ? decodeCursor(RankCursor, query.cursor!) : Effect.fail(foreignCursor()))),
          );
    const rows = yield* (yield* TasksRepository).listTasks({
      projectId,
      status: query.status,
      after: after === undefined ? undefined : { rank: after[0], id: after[1] },
      limit: query.limit + 1,
    });
    return pageFrom(rows, query.limit, (task) => [task.rank, task.id]);
  }).pipe(withSpan("Projects.listTasks"));

/** The caller's view of this project, or 404 (another user's, another project's, or none). */
const ownView = (userId: string, projectId: ProjectId, viewId: SavedViewId): Effect.Effect<SavedView, NotFound, SavedViewsRepository> =>
  Effect.flatMap(SavedViewsRepository, (repo) => repo.findView(viewId)).pipe(
    Effect.filterOrFail(
      (view): view is SavedView => view !== null && view.userId === userId && view.projectId === projectId,
      () => new NotFound({ resource: "view", detail: "No such view." }),
    ),
  );

/** The sort values of `task` in `order` (the id follows them in a cursor). */
const sortValues = (order: TaskOrder, task: Task): ReadonlyArray<string> => {
  switch (order.by) {
    case "rank":
      return [task.rank];
    case "created_at":
      return [task.createdAt.toISOString()];
    case "updated_at":
      return [task.updatedAt.toISOString()];
    case "title":
      return [task.title];
    case "status":
      return [task.status, task.rank];
  }
};

const isIsoTime = (s: string): boolean => {
  const ms = Date.parse(s);
  return Number.isFinite(ms) && new Date(ms).toISOString() === s;
};

/** Whether `values` have the shape `order`'s sort keys have (the codec already checked integrity). */
const fitsOrder = (order: TaskOrder, values: ReadonlyArray<string>): boolean => {
  switch (order.by) {
    case "created_at":
    case "updated_at":
      return values.length === 1 && isIsoTime(values[0]!);
    case "status":
      return values.length === 2 && TaskStatus.literals.some((s) => s === values[0]);
    default:
      return values.length === 1;
  }
};

/** The filters of a view as the repository takes them. */
export const viewFilter = (view: SavedView): TaskFilter => ({
  statuses: view.filters.status,
  assignee: view.filters.assignee_id === undefined ? undefined : { id: view.filters.assignee_id },
  field: view.filters.field === undefined ? undefined : { fieldId: view.filters.field.field_id, value: view.filters.field.value },
});

/**
 * The project's live tasks through one of the caller's saved views: its filters (and `status`,
 * which narrows them further) applied in the query before the limit, its sort with id as the
 * last key, one page after `cursor`. Cursor keys: [list tag, ...sort values, id]; when those
 * would not fit a cursor (a title of hundreds of multi-byte characters), [ref tag, id] and the
 * task's sort values are read back from the task itself.
 */
export const listTasksInView = (
  principal: Principal,
  projectId: ProjectId,
  viewId: SavedViewId,
  query: { readonly status?: TaskStatus | undefined; readonly cursor?: string | undefined; readonly limit: number },
): Effect.Effect<Page<Task>, Forbidden | NotFound | InvalidCursor, ReadServices | SavedViewsRepository> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* projectAccess(userId, projectId);
    yield* requireRight(access, "read");
    const view = yield* ownView(userId, projectId, viewId);
    const order: TaskOrder = view.sort;
    // The list's identity: a cursor of another view or sort (or of the plain list) is refused.
    const tag = `view:${view.id}:${order.by}:${order.direction}`;
    const refTag = `ref:${tag}`;
    const repo = yield* TasksRepository;
    let after: TaskPosition | undefined;
    if (query.cursor !== undefined) {
      const keys = yield* decodeCursor(AnyCursor, query.cursor);
      if (keys[0] === refTag && keys.length === 2) {
        const last = yield* repo.findTask(keys[1]!);
        if (last === null || last.projectId !== projectId) return yield* Effect.fail(foreignCursor());
        after = { values: sortValues(order, last), id: last.id };
      } else {
        const values = keys.slice(1, -1);
        if (keys[0] !== tag || keys.length < 3 || !fitsOrder(order, values)) return yield* Effect.fail(foreignCursor());
        after = { values, id: keys[keys.length - 1]! };
      }
    }
    const keysOf = (task: Task): ReadonlyArray<string> => {
      const keys = [tag, ...sortValues(order, task), task.id];
      return encodeCursor(keys).length <= maxCursorLength ? keys : [refTag, task.id];
    };
    const rows = yield* repo.listTasks({
      projectId,
      status: query.status,
      filter: viewFilter(view),
      order,
      after,
      limit: query.limit + 1,
    });
    return pageFrom(rows, query.limit, keysOf);
  }).pipe(withSpan("Projects.listTasksInView"));
