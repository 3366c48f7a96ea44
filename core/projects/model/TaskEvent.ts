/** One append-only activity fact about a task (its id is the outbox event's id). */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ProjectId, TaskEventId, TaskId, WorkspaceId } from "./Ids.js";

/** One append-only activity fact about a task. */
export const TaskEvent = Schema.Struct({
  id: TaskEventId,
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  taskId: TaskId,
  actorId: Schema.String,
  kind: Schema.String,
  data: Schema.Record({ key: Schema.String, value: Schema.Unknown }),
  createdAt: Schema.DateFromSelf,
});
export type TaskEvent = typeof TaskEvent.Type;

/** Wire shape of one activity entry. */
export const ActivityView = wireShape(TaskEvent);
