/** The CustomFieldsRepository port over `pm_custom_fields` and `pm_task_field_values`. */
import { Effect } from "effect";
import type { CustomField, TaskFieldValue } from "../../../core/projects/CustomFieldRecord.js";
import type { CustomFieldsRepository } from "../../../ports/projects/CustomFieldsRepository.js";
import type { DialectFeatures } from "../DialectFeatures.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/* eslint-disable @typescript-eslint/no-explicit-any */
const fieldFromRow = (f: DialectFeatures, r: any): CustomField => ({
  id: String(r.id),
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  name: String(r.name),
  type: r.type,
  options: f.jsonFromDb(r.options) as string[],
  createdBy: String(r.created_by),
  createdAt: f.timeFromDb(r.created_at),
});

const valueFromRow = (f: DialectFeatures, r: any): TaskFieldValue => ({
  workspaceId: String(r.workspace_id),
  projectId: String(r.project_id),
  taskId: String(r.task_id),
  fieldId: String(r.field_id),
  value: f.jsonFromDb(r.value) as string | number,
  updatedBy: String(r.updated_by),
  updatedAt: f.timeFromDb(r.updated_at),
});

/** Builds the custom field repository over `db`. */
export const makeSqlCustomFieldsRepository = (db: SqlDatabase): CustomFieldsRepository => {
  const f = featuresFor(db);
  return {
    insertField: (field) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_custom_fields")
          .values({
            id: field.id,
            workspace_id: field.workspaceId,
            project_id: field.projectId,
            name: field.name,
            type: field.type,
            options: f.jsonToDb(field.options),
            created_by: field.createdBy,
            created_at: f.timeToDb(field.createdAt),
          })
          .onConflict((oc) => oc.columns(["project_id", "name"]).doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => r !== undefined)),
    findField: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_custom_fields").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : fieldFromRow(f, r))),
      ),
    listFields: (projectId) =>
      runQuery(db, (ex) => ex.selectFrom("pm_custom_fields").selectAll().where("project_id", "=", projectId).orderBy("name").orderBy("id").limit(100).execute()).pipe(
        Effect.map((rows) => rows.map((r) => fieldFromRow(f, r))),
      ),
    countFields: (projectId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_custom_fields").select((eb) => eb.fn.countAll().as("n")).where("project_id", "=", projectId).executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.n))),
    setValue: (v) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_task_field_values")
          .values({
            workspace_id: v.workspaceId,
            project_id: v.projectId,
            task_id: v.taskId,
            field_id: v.fieldId,
            value: f.jsonToDb(v.value),
            updated_by: v.updatedBy,
            updated_at: f.timeToDb(v.updatedAt),
          })
          .onConflict((oc) =>
            oc.columns(["task_id", "field_id"]).doUpdateSet({ value: f.jsonToDb(v.value), updated_by: v.updatedBy, updated_at: f.timeToDb(v.updatedAt) }),
          )
          .execute(),
      ).pipe(Effect.asVoid),
    clearValue: (taskId, fieldId) =>
      runQuery(db, (ex) => ex.deleteFrom("pm_task_field_values").where("task_id", "=", taskId).where("field_id", "=", fieldId).executeTakeFirst()).pipe(
        Effect.map((r) => Number(r.numDeletedRows) === 1),
      ),
    findValue: (taskId, fieldId) =>
      runQuery(db, (ex) => ex.selectFrom("pm_task_field_values").selectAll().where("task_id", "=", taskId).where("field_id", "=", fieldId).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : valueFromRow(f, r))),
      ),
    listValues: (taskId) =>
      runQuery(db, (ex) => ex.selectFrom("pm_task_field_values").selectAll().where("task_id", "=", taskId).orderBy("field_id").limit(100).execute()).pipe(
        Effect.map((rows) => rows.map((r) => valueFromRow(f, r))),
      ),
  };
};
