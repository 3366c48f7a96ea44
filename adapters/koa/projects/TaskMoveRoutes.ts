/** POST /v1/tasks/:id/move: place a task between two neighbour ids (fractional rank). */
import { Schema } from "effect";
import { moveTask } from "../../../core/projects/TaskMove.js";
import { TaskView } from "../../../core/projects/model/Task.js";
import { answerTask } from "./TaskResponses.js";
import { defineRoute } from "../Route.js";
import { TaskParams } from "./ProjectSchemas.js";
import { idOf } from "../RouteIds.js";
import { TaskId } from "../../../core/projects/model/Ids.js";


/** Body of the move: the task lands right after `before_id`, or right before `after_id`. */
export const MoveTaskBody = Schema.Struct({ before_id: Schema.optional(idOf(TaskId)), after_id: Schema.optional(idOf(TaskId)) });

/** POST /v1/tasks/:id/move — contributor or above; If-Match optional. */
export const moveTaskRoute = defineRoute({
  method: "POST",
  path: "/v1/tasks/:id/move",
  operationId: "moveTask",
  summary: "Move a task between two neighbours",
  description:
    "The task lands right after before_id (or right before after_id), even when tasks the caller cannot see sit between them. 409 task_deleted for a task in the trash; 409 task_order_changed if the neighbours kept changing. " +
    "With If-Match, only if the task is still at that version: 412 version_mismatch with `current` otherwise. Without it, unconditional.",
  tags: ["projects"],
  auth: "required",
  answersEtag: "version",
  ifMatch: "optional",
  params: TaskParams,
  body: MoveTaskBody,
  responses: { 200: TaskView },
  problems: [403, 404, 409, 412, 422],
  handler: ({ principal, params, body, ifMatch }) =>
    answerTask(200, moveTask(principal, params.id, { beforeId: body.before_id, afterId: body.after_id, expectedVersion: ifMatch })),
});

/** Task move routes. */
export const taskMoveRoutes = [moveTaskRoute];
