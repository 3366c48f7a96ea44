/** A task of one project, and the statuses of the default workflow (core/projects/TaskWorkflow.ts). */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ProjectId, TaskId, WorkspaceId } from "./Ids.js";

/** Every status of the default workflow. */
export const TaskStatus = Schema.Literal("todo", "in_progress", "done");
export type TaskStatus = typeof TaskStatus.Type;

/** A task; `version` > 0 advances by one on every accepted change. */
export const Task = Schema.Struct({
  id: TaskId,
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  title: Schema.String,
  status: TaskStatus,
  assigneeId: Schema.NullOr(Schema.String),
  /** Fractional ordering key within the project; ties are broken by id. */
  rank: Schema.String,
  version: Schema.Int,
  deletedAt: Schema.NullOr(Schema.DateFromSelf),
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type Task = typeof Task.Type;

/** Wire shape of a task (HTTP answers and the `task` of TaskChanged data). */
export const TaskView = wireShape(Task);
export type TaskView = typeof TaskView.Encoded;
