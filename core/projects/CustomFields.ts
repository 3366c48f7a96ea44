/**
 * Custom fields: a project admin defines them; anyone who may edit tasks sets validated values
 * (text up to 2000 characters, a finite number, a calendar date `YYYY-MM-DD`, or one of a
 * single_select's options; null clears). Values are per field, last writer wins: they do not
 * advance the task's version (field-level edits of other fields never conflict).
 */
import { Effect } from "effect";
import { Conflict, Forbidden, ValidationFailed, type FieldError, type NotFound } from "../kernel/Errors.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { CustomFieldsRepository } from "../../ports/projects/CustomFieldsRepository.js";
import { projectAccess, requireRight, requireUser, taskAccess } from "./Access.js";
import { now } from "./Clock.js";
import type { TaskServices } from "./CreateTask.js";
import type { CustomField, CustomFieldType, CustomFieldValue, TaskFieldValue } from "./CustomFieldRecord.js";
import { TaskDeleted } from "./ProjectErrors.js";

/** Services of the custom field commands. */
export type CustomFieldServices = TaskServices | CustomFieldsRepository;

/** Most fields one project may define. */
export const maxFieldsPerProject = 100;

const invalid = (errors: FieldError[]) => new ValidationFailed({ errors });

const validDefinition = (input: { name: string; type: CustomFieldType; options?: ReadonlyArray<string> | undefined }) => {
  const errors: FieldError[] = [];
  const name = input.name.trim();
  if (name.length < 1 || name.length > 100) errors.push({ path: "name", message: "must be 1 to 100 characters" });
  const options = [...new Set((input.options ?? []).map((o) => o.trim()))];
  if (input.type === "single_select") {
    if (options.length < 1 || options.length > 50 || options.some((o) => o.length < 1 || o.length > 100)) {
      errors.push({ path: "options", message: "a single_select needs 1 to 50 options of 1 to 100 characters" });
    }
  } else if ((input.options ?? []).length > 0) errors.push({ path: "options", message: "only a single_select has options" });
  return errors.length > 0 ? Effect.fail(invalid(errors)) : Effect.succeed({ name, options: input.type === "single_select" ? options : [] });
};

const isCalendarDate = (value: string): boolean => {
  if (!/^\d{4}-\d{2}-\d{2}$/.test(value)) return false;
  const date = new Date(`${value}T00:00:00Z`);
  return !Number.isNaN(date.getTime()) && date.toISOString().slice(0, 10) === value;
};

/** The value `raw` as the field's type accepts it, or a 422 naming `value`. */
export const validFieldValue = (field: CustomField, raw: unknown): Effect.Effect<CustomFieldValue, ValidationFailed> => {
  const fail = (message: string) => Effect.fail(invalid([{ path: "value", message }]));
  switch (field.type) {
    case "text":
      return typeof raw === "string" && raw.length <= 2000 ? Effect.succeed(raw) : fail("must be text of at most 2000 characters");
    case "number":
      return typeof raw === "number" && Number.isFinite(raw) ? Effect.succeed(raw) : fail("must be a finite number");
    case "date":
      return typeof raw === "string" && isCalendarDate(raw) ? Effect.succeed(raw) : fail("must be a calendar date YYYY-MM-DD");
    case "single_select":
      return typeof raw === "string" && field.options.includes(raw) ? Effect.succeed(raw) : fail(`must be one of: ${field.options.join(", ")}`);
  }
};

/** Defines a field on a project (project admin). 409 custom_field_exists for a taken name. */
export const createCustomField = (
  principal: Principal,
  projectId: string,
  input: { readonly name: string; readonly type: CustomFieldType; readonly options?: ReadonlyArray<string> | undefined },
): Effect.Effect<CustomField, Forbidden | NotFound | ValidationFailed | Conflict, CustomFieldServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* projectAccess(userId, projectId);
    if (access.role !== "admin") return yield* Effect.fail(new Forbidden({ detail: "Only a project admin can define custom fields." }));
    const { name, options } = yield* validDefinition(input);
    const repo = yield* CustomFieldsRepository;
    if ((yield* repo.countFields(projectId)) >= maxFieldsPerProject) {
      return yield* Effect.fail(invalid([{ path: "name", message: `a project has at most ${maxFieldsPerProject} custom fields` }]));
    }
    const field: CustomField = {
      id: yield* (yield* Ids).next,
      workspaceId: access.project.workspaceId,
      projectId,
      name,
      type: input.type,
      options,
      createdBy: userId,
      createdAt: yield* now,
    };
    if (!(yield* repo.insertField(field))) {
      return yield* Effect.fail(new Conflict({ code: "custom_field_exists", detail: `The project already has a field named "${name}".` }));
    }
    return field;
  }).pipe(Effect.withSpan("Projects.createCustomField"));

/** The project's field definitions (any project reader). */
export const listCustomFields = (principal: Principal, projectId: string): Effect.Effect<ReadonlyArray<CustomField>, Forbidden | NotFound, CustomFieldServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    yield* requireRight(yield* projectAccess(userId, projectId), "read");
    return yield* (yield* CustomFieldsRepository).listFields(projectId);
  });

/** Sets (or with null clears) a field value on a task (task editors); the field must be the task's project's. */
export const setTaskFieldValue = (
  principal: Principal,
  taskId: string,
  fieldId: string,
  raw: unknown,
): Effect.Effect<TaskFieldValue | null, Forbidden | NotFound | ValidationFailed | TaskDeleted, CustomFieldServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { task, access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "edit_tasks");
    const repo = yield* CustomFieldsRepository;
    const field = yield* repo.findField(fieldId);
    if (field === null || field.projectId !== task.projectId) {
      return yield* Effect.fail(invalid([{ path: "field_id", message: "is not a field of this task's project" }]));
    }
    if (task.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
    if (raw === null) {
      yield* repo.clearValue(taskId, fieldId);
      return null;
    }
    const value: TaskFieldValue = {
      workspaceId: task.workspaceId,
      projectId: task.projectId,
      taskId,
      fieldId,
      value: yield* validFieldValue(field, raw),
      updatedBy: userId,
      updatedAt: yield* now,
    };
    yield* repo.setValue(value);
    return value;
  }).pipe(Effect.withSpan("Projects.setTaskFieldValue"));

/** A visible task's field values. */
export const listTaskFieldValues = (principal: Principal, taskId: string): Effect.Effect<ReadonlyArray<TaskFieldValue>, Forbidden | NotFound, CustomFieldServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "read");
    return yield* (yield* CustomFieldsRepository).listValues(taskId);
  });
