/** Task dependencies (should-have): "task is blocked by another task" within one project. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ProjectId, TaskId, WorkspaceId } from "./Ids.js";

/** One blocked-by edge. */
export const TaskDependency = Schema.Struct({
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  taskId: TaskId,
  blockedById: TaskId,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type TaskDependency = typeof TaskDependency.Type;

/** A task's dependencies in both directions. */
export const TaskDependencies = Schema.Struct({
  taskId: TaskId,
  blockedBy: Schema.Array(TaskId),
  blocking: Schema.Array(TaskId),
});
export type TaskDependencies = typeof TaskDependencies.Type;

/** Wire shape of a task's dependencies. */
export const TaskDependenciesView = wireShape(TaskDependencies);
