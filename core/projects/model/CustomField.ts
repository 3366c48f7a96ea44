/**
 * Custom fields (should-have): per-project definitions of type text, number, date or
 * single_select.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { CustomFieldId, ProjectId, WorkspaceId } from "./Ids.js";

/** The kinds of custom field. */
export const CustomFieldType = Schema.Literal("text", "number", "date", "single_select");
export type CustomFieldType = typeof CustomFieldType.Type;

/** A field definition of one project; its name is unique within the project. */
export const CustomField = Schema.Struct({
  id: CustomFieldId,
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  name: Schema.String,
  type: CustomFieldType,
  /** The allowed values of a single_select (empty for other types). */
  options: Schema.Array(Schema.String),
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type CustomField = typeof CustomField.Type;

/** Wire shape of a field definition (the workspace stays implicit). */
export const CustomFieldView = wireShape(Schema.Struct(Struct.omit(CustomField.fields, "workspaceId")));
