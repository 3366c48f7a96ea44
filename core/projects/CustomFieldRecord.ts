/**
 * Custom fields (should-have): per-project definitions of type text, number, date or
 * single_select, and one validated value per task and field.
 */
import { Schema } from "effect";

/** The kinds of custom field. */
export const CustomFieldType = Schema.Literal("text", "number", "date", "single_select");
export type CustomFieldType = typeof CustomFieldType.Type;

/** A field definition of one project; its name is unique within the project. */
export interface CustomField {
  readonly id: string;
  readonly workspaceId: string;
  readonly projectId: string;
  readonly name: string;
  readonly type: CustomFieldType;
  /** The allowed values of a single_select (empty for other types). */
  readonly options: ReadonlyArray<string>;
  readonly createdBy: string;
  readonly createdAt: Date;
}

/** A stored value: a string (text, date as YYYY-MM-DD, select option) or a number. */
export type CustomFieldValue = string | number;

/** The value of one field on one task. */
export interface TaskFieldValue {
  readonly workspaceId: string;
  readonly projectId: string;
  readonly taskId: string;
  readonly fieldId: string;
  readonly value: CustomFieldValue;
  readonly updatedBy: string;
  readonly updatedAt: Date;
}

/** Wire shape of a field definition. */
export const CustomFieldView = Schema.Struct({
  id: Schema.String,
  project_id: Schema.String,
  name: Schema.String,
  type: CustomFieldType,
  options: Schema.Array(Schema.String),
  created_by: Schema.String,
  created_at: Schema.String,
});

/** Wire shape of a task's field value. */
export const TaskFieldValueView = Schema.Struct({
  task_id: Schema.String,
  field_id: Schema.String,
  value: Schema.Union(Schema.String, Schema.Number),
  updated_by: Schema.String,
  updated_at: Schema.String,
});

/** Wire shape of a field definition. */
export const customFieldView = (f: CustomField): typeof CustomFieldView.Type => ({
  id: f.id,
  project_id: f.projectId,
  name: f.name,
  type: f.type,
  options: [...f.options],
  created_by: f.createdBy,
  created_at: f.createdAt.toISOString(),
});

/** Wire shape of a field value. */
export const taskFieldValueView = (v: TaskFieldValue): typeof TaskFieldValueView.Type => ({
  task_id: v.taskId,
  field_id: v.fieldId,
  value: v.value,
  updated_by: v.updatedBy,
  updated_at: v.updatedAt.toISOString(),
});
