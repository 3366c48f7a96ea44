/** Routes of tasks: list, create, read (ETag), conditional PATCH, soft delete and restore. */
import { Effect, Schema } from "effect";
import { createTask } from "../../../core/projects/CreateTask.js";
import { getTask, listTasks, listTasksInView } from "../../../core/projects/TaskQueries.js";
import { deleteTask, restoreTask } from "../../../core/projects/TaskTrash.js";
import { updateTask } from "../../../core/projects/UpdateTask.js";
import { TaskView } from "../../../core/projects/model/Task.js";
import { answerTask } from "./TaskResponses.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { CreateTaskBody, PatchTaskBody, ProjectParams, ReasonQuery, TaskListQuery, TaskParams } from "./ProjectSchemas.js";
import { idOf } from "../RouteIds.js";
import { SavedViewId } from "../../../core/projects/model/Ids.js";

const tags = ["projects"];

/** Query of GET /v1/projects/:id/tasks: the plain list's, plus an optional saved view. */
export const TaskListViewQuery = Schema.Struct({
  ...TaskListQuery.fields,
  view: Schema.optional(idOf(SavedViewId)).annotations({
    description: "Id of one of your saved views of this project: its filters and sort apply (404 for any other view).",
  }),
});

/** GET /v1/projects/:id/tasks — live tasks in (rank, id) order, or through a saved view. */
export const listTasksRoute = defineRoute({
  method: "GET",
  path: "/v1/projects/:id/tasks",
  operationId: "listTasks",
  summary: "List a project's tasks (stable keyset pages by rank, then id, or by a saved view's sort, then id)",
  description:
    "`view` applies one of your saved views (filters and sort); `status` together with `view` narrows the view further. " +
    "A cursor only continues the list that produced it: one of another view or sort is 400 invalid_cursor.",
  tags,
  auth: "required",
  pagination: true,
  params: ProjectParams,
  query: TaskListViewQuery,
  responses: { 200: PageOf(TaskView) },
  problems: [400, 403, 404],
  handler: ({ principal, params, query, page }) => {
    const request = { status: query.status, cursor: page.cursor, limit: page.limit };
    const listed = query.view === undefined ? listTasks(principal, params.id, request) : listTasksInView(principal, params.id, query.view, request);
    return listed.pipe(Effect.map((page) => ({ status: 200, body: page })));
  },
});

/** POST /v1/projects/:id/tasks — project contributor. */
export const createTaskRoute = defineRoute({
  method: "POST",
  path: "/v1/projects/:id/tasks",
  operationId: "createTask",
  summary: "Create a task",
  description: "Status defaults to the first status of the workflow (todo). An Idempotency-Key is accepted and recommended.",
  tags,
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: ProjectParams,
  body: CreateTaskBody,
  responses: { 201: TaskView },
  problems: [403, 404, 422],
  handler: ({ principal, params, body }) =>
    answerTask(201, createTask(principal, params.id, { title: body.title, status: body.status, assigneeId: body.assignee_id })),
});

/** GET /v1/tasks/:id — with ETag. */
export const getTaskRoute = defineRoute({
  method: "GET",
  path: "/v1/tasks/:id",
  operationId: "getTask",
  summary: "Read a task (ETag carries its version)",
  tags,
  auth: "required",
  answersEtag: "version",
  params: TaskParams,
  responses: { 200: TaskView },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    answerTask(200, getTask(principal, params.id)),
});

/** PATCH /v1/tasks/:id — If-Match required; 412 with `current`, 409 for state rules. */
export const patchTaskRoute = defineRoute({
  method: "PATCH",
  path: "/v1/tasks/:id",
  operationId: "updateTask",
  summary: "Update task fields with the expected version in If-Match",
  description:
    "412 version_mismatch carries the current task in `current`. 409 illegal_status_transition: the workflow has no such move; 409 task_deleted: the task is in the trash. 428 without If-Match.",
  tags,
  auth: "required",
  answersEtag: "version",
  ifMatch: "required",
  params: TaskParams,
  body: PatchTaskBody,
  responses: { 200: TaskView },
  problems: [403, 404, 409, 412, 422, 428],
  handler: ({ principal, params, body, ifMatch }) =>
    answerTask(200, updateTask(principal, params.id, ifMatch, { title: body.title, status: body.status, assigneeId: body.assignee_id })),
});

/** DELETE /v1/tasks/:id — soft delete (idempotent); If-Match optional. */
export const deleteTaskRoute = defineRoute({
  method: "DELETE",
  path: "/v1/tasks/:id",
  operationId: "deleteTask",
  summary: "Move a task to the trash (kept for restore and audit)",
  description: "With If-Match, only if the task is still at that version: 412 version_mismatch with `current` otherwise. Without it, unconditional.",
  tags,
  auth: "required",
  answersEtag: "version",
  ifMatch: "optional",
  params: TaskParams,
  query: ReasonQuery,
  responses: { 200: TaskView },
  problems: [403, 404, 412],
  handler: ({ principal, params, query, ifMatch }) =>
    answerTask(200, deleteTask(principal, params.id, { reason: query.reason, expectedVersion: ifMatch })),
});

/** POST /v1/tasks/:id/restore — out of the trash (idempotent); If-Match optional. */
export const restoreTaskRoute = defineRoute({
  method: "POST",
  path: "/v1/tasks/:id/restore",
  operationId: "restoreTask",
  summary: "Restore a task from the trash",
  description: "With If-Match, only if the task is still at that version: 412 version_mismatch with `current` otherwise. Without it, unconditional.",
  tags,
  auth: "required",
  answersEtag: "version",
  ifMatch: "optional",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: TaskParams,
  query: ReasonQuery,
  responses: { 200: TaskView },
  problems: [403, 404, 412],
  handler: ({ principal, params, query, ifMatch }) =>
    answerTask(200, restoreTask(principal, params.id, { reason: query.reason, expectedVersion: ifMatch })),
});

/** Task routes. */
export const taskRoutes = [listTasksRoute, createTaskRoute, getTaskRoute, patchTaskRoute, deleteTaskRoute, restoreTaskRoute];
