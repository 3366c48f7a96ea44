/** The CustomFieldsRepository port over `pm_custom_fields` and `pm_task_field_values`. */
import { Effect } from "effect";
import { CustomField } from "../../../core/projects/model/CustomField.js";
import { TaskFieldValue } from "../../../core/projects/model/TaskFieldValue.js";
import type { CustomFieldsRepository } from "../../../ports/projects/CustomFieldsRepository.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import { rowCodec } from "../RowCodec.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the custom field repository over `db`. */
export const makeSqlCustomFieldsRepository = (db: SqlDatabase): CustomFieldsRepository => {
  const f = featuresFor(db);
  const fields = rowCodec(CustomField, f);
  const values = rowCodec(TaskFieldValue, f);
  return {
    insertField: (field) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_custom_fields")
          .values(fields.toRow(field))
          .onConflict((oc) => oc.columns(["project_id", "name"]).doNothing())
          .returning("id")
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => r !== undefined)),
    findField: (id) =>
      runQuery(db, (ex) => ex.selectFrom("pm_custom_fields").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((r) => (r === undefined ? null : fields.fromRow(r))),
      ),
    listFields: (projectId) =>
      runQuery(db, (ex) => ex.selectFrom("pm_custom_fields").selectAll().where("project_id", "=", projectId).orderBy("name").orderBy("id").limit(100).execute()).pipe(
        Effect.map((rows) => rows.map((r) => fields.fromRow(r))),
      ),
    countFields: (projectId) =>
      runQuery(db, (ex) =>
        ex.selectFrom("pm_custom_fields").select((eb) => eb.fn.countAll().as("n")).where("project_id", "=", projectId).executeTakeFirstOrThrow(),
      ).pipe(Effect.map((r) => toNumber(r.n))),
    setValue: (v) =>
      runQuery(db, (ex) =>
        ex
          .insertInto("pm_task_field_values")
          .values(values.toRow(v))
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
        Effect.map((r) => (r === undefined ? null : values.fromRow(r))),
      ),
    listValues: (taskId) =>
      runQuery(db, (ex) => ex.selectFrom("pm_task_field_values").selectAll().where("task_id", "=", taskId).orderBy("field_id").limit(100).execute()).pipe(
        Effect.map((rows) => rows.map((r) => values.fromRow(r))),
      ),
  };
};
