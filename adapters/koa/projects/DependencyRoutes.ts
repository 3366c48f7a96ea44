/**
 * Routes of task dependencies (blocked-by; a cycle answers 409 dependency_cycle). A task's
 * dependency set is a resource, not a list: `{task_id, blocked_by, blocking}` answered whole,
 * bounded by maxEdgesPerTask edges per task in both arrays together (docs/decisions.md).
 */
import { Effect, Schema } from "effect";
import { addDependency, listDependencies, maxEdgesPerTask, removeDependency } from "../../../core/projects/Dependencies.js";
import { TaskDependenciesView, type TaskDependencies } from "../../../core/projects/model/TaskDependency.js";
import { defineRoute } from "../Route.js";
import { ReasonQuery, TaskParams } from "./ProjectSchemas.js";
import { idOf } from "../RouteIds.js";
import { TaskId } from "../../../core/projects/model/Ids.js";

const tags = ["projects"];

/** What the answer of both dependency routes is: one resource, whole, with its bound. */
const dependencySetDescription =
  `The task's dependency set, a resource answered whole (not a paged list): \`blocked_by\` and \`blocking\` hold together at most ${maxEdgesPerTask} edges, ` +
  `the bound at which a new edge is refused with 422 (when either of its tasks is at it).`;

const view = (taskId: TaskId, deps: { readonly blockedBy: ReadonlyArray<TaskId>; readonly blocking: ReadonlyArray<TaskId> }): TaskDependencies => ({
  taskId,
  blockedBy: deps.blockedBy,
  blocking: deps.blocking,
});

/** POST /v1/tasks/:id/dependencies — task editors; 201 when new, 200 when it already existed. */
export const addDependencyRoute = defineRoute({
  method: "POST",
  path: "/v1/tasks/:id/dependencies",
  operationId: "addTaskDependency",
  summary: "Mark a task as blocked by another task of the same project",
  description: `409 dependency_cycle when the edge would close a cycle (or a task would block itself). ${dependencySetDescription}`,
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: TaskParams,
  body: Schema.Struct({ blocked_by_id: idOf(TaskId) }),
  responses: { 201: TaskDependenciesView, 200: TaskDependenciesView },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    Effect.gen(function* () {
      const created = yield* addDependency(principal, params.id, body.blocked_by_id);
      const deps = yield* listDependencies(principal, params.id);
      return { status: created ? 201 : 200, body: view(params.id, deps) };
    }),
});

/** GET /v1/tasks/:id/dependencies. */
export const listDependenciesRoute = defineRoute({
  method: "GET",
  path: "/v1/tasks/:id/dependencies",
  operationId: "listTaskDependencies",
  summary: "A task's blockers and the tasks it blocks",
  description: dependencySetDescription,
  tags,
  auth: "required",
  params: TaskParams,
  responses: { 200: TaskDependenciesView },
  problems: [403, 404],
  handler: ({ principal, params }) => listDependencies(principal, params.id).pipe(Effect.map((deps) => ({ status: 200, body: view(params.id, deps) }))),
});

/** DELETE /v1/tasks/:id/dependencies/:blockedById — idempotent (204); `?reason=` is recorded with the actor. */
export const removeDependencyRoute = defineRoute({
  method: "DELETE",
  path: "/v1/tasks/:id/dependencies/:blockedById",
  operationId: "removeTaskDependency",
  summary: "Remove a blocked-by dependency (actor and reason recorded)",
  tags,
  auth: "required",
  params: Schema.Struct({ id: idOf(TaskId), blockedById: idOf(TaskId) }),
  query: ReasonQuery,
  responses: { 204: null },
  problems: [403, 404],
  handler: ({ principal, params, query }) =>
    removeDependency(principal, params.id, params.blockedById, { reason: query.reason }).pipe(Effect.as({ status: 204 })),
});

/** Dependency routes. */
export const dependencyRoutes = [addDependencyRoute, listDependenciesRoute, removeDependencyRoute];
