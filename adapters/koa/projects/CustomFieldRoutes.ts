/** Routes of custom fields: per-project definitions and validated values on tasks. */
import { Effect, Schema } from "effect";
import { CustomFieldType, CustomFieldView } from "../../../core/projects/model/CustomField.js";
import { TaskFieldValueView } from "../../../core/projects/model/TaskFieldValue.js";
import { createCustomField, listCustomFields, listTaskFieldValues, setTaskFieldValue } from "../../../core/projects/CustomFields.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { ProjectParams, TaskParams } from "./ProjectSchemas.js";
import { idOf } from "../RouteIds.js";
import { CustomFieldId, TaskId } from "../../../core/projects/model/Ids.js";
import { currentAsTaskView } from "./TaskResponses.js";

const tags = ["projects"];

/** Body of POST /v1/projects/:id/fields. */
export const CustomFieldBody = Schema.Struct({
  name: Schema.String,
  type: CustomFieldType,
  options: Schema.optional(Schema.Array(Schema.String).pipe(Schema.maxItems(100))),
});

/** Body of PUT /v1/tasks/:id/fields/:fieldId (null clears the value). */
export const FieldValueBody = Schema.Struct({ value: Schema.NullOr(Schema.Union(Schema.String, Schema.Number)) });

/** POST /v1/projects/:id/fields — project admin. */
export const createCustomFieldRoute = defineRoute({
  method: "POST",
  path: "/v1/projects/:id/fields",
  operationId: "createCustomField",
  summary: "Define a custom field (text, number, date, single_select)",
  description: "409 custom_field_exists when the project already has a field of that name.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: ProjectParams,
  body: CustomFieldBody,
  responses: { 201: CustomFieldView },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    createCustomField(principal, params.id, body).pipe(Effect.map((field) => ({ status: 201, body: field }))),
});

/** GET /v1/projects/:id/fields — a small bounded collection (at most 100). */
export const listCustomFieldsRoute = defineRoute({
  method: "GET",
  path: "/v1/projects/:id/fields",
  operationId: "listCustomFields",
  summary: "List a project's custom fields",
  tags,
  auth: "required",
  params: ProjectParams,
  responses: { 200: PageOf(CustomFieldView) },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    listCustomFields(principal, params.id).pipe(Effect.map((fields) => ({ status: 200, body: { data: fields, next_cursor: null } }))),
});

/** PUT /v1/tasks/:id/fields/:fieldId — task editors; 200 with the value, 204 when cleared; ETag: the task's version. */
export const setTaskFieldValueRoute = defineRoute({
  method: "PUT",
  path: "/v1/tasks/:id/fields/:fieldId",
  operationId: "setTaskFieldValue",
  summary: "Set or clear a custom field value on a task",
  description:
    "The value is validated against the field's type; `null` clears it (204). A change advances the task's version (the ETag of the answer) " +
    "and is a TaskChanged event. If-Match (the task version) is optional: when sent, a stale version is 412 version_mismatch with the current task " +
    "in `current`; without it the value is last writer wins. 409 task_deleted for a task in the trash.",
  tags,
  auth: "required",
  answersEtag: "version",
  ifMatch: "optional",
  params: Schema.Struct({ id: idOf(TaskId), fieldId: idOf(CustomFieldId) }),
  body: FieldValueBody,
  responses: { 200: TaskFieldValueView, 204: null },
  problems: [403, 404, 409, 412, 422],
  handler: ({ principal, params, body, ifMatch }) =>
    setTaskFieldValue(principal, params.id, params.fieldId, body.value, ifMatch).pipe(
      Effect.map(({ value, task }) =>
        value === null ? { status: 204, etag: task.version } : { status: 200, body: value, etag: task.version },
      ),
      Effect.mapError(currentAsTaskView),
    ),
});

/** GET /v1/tasks/:id/fields — the task's values. */
export const listTaskFieldValuesRoute = defineRoute({
  method: "GET",
  path: "/v1/tasks/:id/fields",
  operationId: "listTaskFieldValues",
  summary: "List a task's custom field values",
  tags,
  auth: "required",
  params: TaskParams,
  responses: { 200: PageOf(TaskFieldValueView) },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    listTaskFieldValues(principal, params.id).pipe(Effect.map((values) => ({ status: 200, body: { data: values, next_cursor: null } }))),
});

/** Custom field routes. */
export const customFieldRoutes = [createCustomFieldRoute, listCustomFieldsRoute, setTaskFieldValueRoute, listTaskFieldValuesRoute];
