/** Storage of custom field definitions and task field values. */
import { Context, Effect } from "effect";
import type { CustomField } from "../../core/projects/model/CustomField.js";
import type { TaskFieldValue } from "../../core/projects/model/TaskFieldValue.js";

/** The custom field repository. */
export interface CustomFieldsRepository {
  /** Inserts a definition; false when the project already has a field of that name. */
  readonly insertField: (field: CustomField) => Effect.Effect<boolean>;
  readonly findField: (id: string) => Effect.Effect<CustomField | null>;
  /** Definitions of a project by name (a small bounded collection: at most 100 per project). */
  readonly listFields: (projectId: string) => Effect.Effect<ReadonlyArray<CustomField>>;
  readonly countFields: (projectId: string) => Effect.Effect<number>;
  /** Sets (upserts) a value. */
  readonly setValue: (value: TaskFieldValue) => Effect.Effect<void>;
  /** Clears a value; false when none was set. */
  readonly clearValue: (taskId: string, fieldId: string) => Effect.Effect<boolean>;
  /** The value of one field on one task, or null. */
  readonly findValue: (taskId: string, fieldId: string) => Effect.Effect<TaskFieldValue | null>;
  readonly listValues: (taskId: string) => Effect.Effect<ReadonlyArray<TaskFieldValue>>;
}
export const CustomFieldsRepository = Context.GenericTag<CustomFieldsRepository>("domainkit/projects/CustomFieldsRepository");
