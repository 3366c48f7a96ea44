/** The value of one custom field on one task. */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { CustomFieldId, ProjectId, TaskId, WorkspaceId } from "./Ids.js";

/** A stored value: a string (text, date as YYYY-MM-DD, select option) or a number. */
export const CustomFieldValue = Schema.Union(Schema.String, Schema.Number);
export type CustomFieldValue = typeof CustomFieldValue.Type;

/** The value of one field on one task. */
export const TaskFieldValue = Schema.Struct({
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  taskId: TaskId,
  fieldId: CustomFieldId,
  value: CustomFieldValue,
  updatedBy: Schema.String,
  updatedAt: Schema.DateFromSelf,
});
export type TaskFieldValue = typeof TaskFieldValue.Type;

/** Wire shape of a task's field value. */
export const TaskFieldValueView = wireShape(Schema.Struct(Struct.omit(TaskFieldValue.fields, "workspaceId", "projectId")));
