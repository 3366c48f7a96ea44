/** Task dependencies (should-have): "task is blocked by another task" within one project. */
import { Schema } from "effect";

/** One blocked-by edge. */
export interface TaskDependency {
  readonly workspaceId: string;
  readonly projectId: string;
  readonly taskId: string;
  readonly blockedById: string;
  readonly createdBy: string;
  readonly createdAt: Date;
}

/** Wire shape of a task's dependencies. */
export const TaskDependenciesView = Schema.Struct({
  task_id: Schema.String,
  blocked_by: Schema.Array(Schema.String),
  blocking: Schema.Array(Schema.String),
});
