/** Task dependencies (should-have): "task is blocked by another task" within one project. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";

/** One blocked-by edge. */
export const TaskDependency = Schema.Struct({
  workspaceId: Schema.String,
  projectId: Schema.String,
  taskId: Schema.String,
  blockedById: Schema.String,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type TaskDependency = typeof TaskDependency.Type;

/** A task's dependencies in both directions. */
export const TaskDependencies = Schema.Struct({
  taskId: Schema.String,
  blockedBy: Schema.Array(Schema.String),
  blocking: Schema.Array(Schema.String),
});
export type TaskDependencies = typeof TaskDependencies.Type;

/** Wire shape of a task's dependencies. */
export const TaskDependenciesView = wireShape(TaskDependencies);
