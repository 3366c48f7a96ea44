/**
 * Custom fields: a project admin defines them; anyone who may edit tasks sets validated values
 * (text up to 2000 characters, a finite number, a calendar date `YYYY-MM-DD`, or one of a
 * single_select's options; null clears). Setting or clearing a value is a change of the task:
 * it advances the task's version with the same conditional update as PATCH and records a
 * `task.field_set` fact (TaskChanged at the new version), task write, value, TaskEvent and
 * outbox row in one transaction. With an expected version (If-Match) a stale one is 412; without
 * one the value is last writer wins, and a lost version race is retried on a fresh read, so no
 * other change of the task is ever overwritten.
 */
import { Effect } from "effect";
import { Conflict, Forbidden, ValidationFailed, type FieldError, type NotFound, type VersionMismatch } from "../kernel/Errors.js";
import { advance, staleWrite, versionMismatch } from "../kernel/Versioning.js";
import { Ids } from "../../ports/Ids.js";
import type { Principal } from "../../ports/Principal.js";
import { Transactions } from "../../ports/Transactions.js";
import { ProjectsRepository } from "../../ports/projects/ProjectsRepository.js";
import { CustomFieldsRepository } from "../../ports/projects/CustomFieldsRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import { projectAccess, requireRight, requireUser, taskAccess } from "./Access.js";
import { now } from "../kernel/Clock.js";
import type { TaskServices } from "./CreateTask.js";
import type { CustomField, CustomFieldType } from "./model/CustomField.js";
import type { CustomFieldValue, TaskFieldValue } from "./model/TaskFieldValue.js";
import { TaskDeleted } from "./Errors.js";
import type { Task } from "./model/Task.js";
import { recordTaskFact } from "./TaskFacts.js";
import { withSpan } from "../kernel/Span.js";
import { CustomFieldId, ProjectId, TaskId } from "./model/Ids.js";

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
  projectId: ProjectId,
  input: { readonly name: string; readonly type: CustomFieldType; readonly options?: ReadonlyArray<string> | undefined },
): Effect.Effect<CustomField, Forbidden | NotFound | ValidationFailed | Conflict, CustomFieldServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const access = yield* projectAccess(userId, projectId);
    if (access.role !== "admin") return yield* Effect.fail(new Forbidden({ detail: "Only a project admin can define custom fields." }));
    const { name, options } = yield* validDefinition(input);
    const repo = yield* CustomFieldsRepository;
    const field: CustomField = {
      id: CustomFieldId.make(yield* (yield* Ids).next),
      workspaceId: access.project.workspaceId,
      projectId,
      name,
      type: input.type,
      options,
      createdBy: userId,
      createdAt: yield* now,
    };
    // Counted and inserted under the project's lock: creations racing at the last place are
    // decided one after the other, so the bound holds (the list reads at most the bound).
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        yield* (yield* ProjectsRepository).findProject(projectId, { lock: true });
        if ((yield* repo.countFields(projectId)) >= maxFieldsPerProject) {
          return yield* Effect.fail(invalid([{ path: "name", message: `a project has at most ${maxFieldsPerProject} custom fields` }]));
        }
        if (!(yield* repo.insertField(field))) {
          return yield* Effect.fail(new Conflict({ code: "custom_field_exists", detail: `The project already has a field named "${name}".` }));
        }
        return field;
      }),
    );
  }).pipe(withSpan("Projects.createCustomField"));

/** The project's field definitions (any project reader). */
export const listCustomFields = (principal: Principal, projectId: ProjectId): Effect.Effect<ReadonlyArray<CustomField>, Forbidden | NotFound, CustomFieldServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    yield* requireRight(yield* projectAccess(userId, projectId), "read");
    return yield* (yield* CustomFieldsRepository).listFields(projectId);
  });

/** What setting a field value answers: the value (null when cleared) and the task at its version after the write. */
export interface FieldValueChange {
  readonly value: TaskFieldValue | null;
  readonly task: Task;
}

/** Tries of the version bump without an expected version (each lost race re-reads the task). */
const bumpAttempts = 8;

/**
 * Sets (or with null clears) a field value on a task (task editors); the field must be the task's
 * project's. Check order as PATCH: 404, 403, 422 (field, value), 412 (stale `expectedVersion`),
 * 409 (task in trash). Writing the value it already has changes nothing: no version, no event.
 */
export const setTaskFieldValue = (
  principal: Principal,
  taskId: TaskId,
  fieldId: CustomFieldId,
  raw: unknown,
  expectedVersion?: number | undefined,
): Effect.Effect<FieldValueChange, Forbidden | NotFound | ValidationFailed | VersionMismatch | TaskDeleted, CustomFieldServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { task, access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "edit_tasks");
    const repo = yield* CustomFieldsRepository;
    const field = yield* repo.findField(fieldId);
    if (field === null || field.projectId !== task.projectId) {
      return yield* Effect.fail(invalid([{ path: "field_id", message: "is not a field of this task's project" }]));
    }
    const value = raw === null ? null : yield* validFieldValue(field, raw);
    const tasks = yield* TasksRepository;
    const write = (attemptsLeft: number): Effect.Effect<FieldValueChange, NotFound | VersionMismatch | TaskDeleted, CustomFieldServices> =>
      Effect.gen(function* () {
        const loaded = yield* tasks.findTask(taskId);
        const current = loaded === null ? yield* staleWrite("task", Effect.succeed(undefined)) : loaded;
        if (expectedVersion !== undefined && current.version !== expectedVersion) return yield* Effect.fail(versionMismatch(current, expectedVersion));
        if (current.deletedAt !== null) return yield* Effect.fail(new TaskDeleted({ detail: "The task is in the trash; restore it first." }));
        // Read before the task row is claimed; any other value write must claim the row too, so a
        // value that moved meanwhile makes the conditional update below fail and re-read.
        const previous = yield* repo.findValue(taskId, fieldId);
        if (value === null ? previous === null : previous !== null && previous.value === value) return { value: previous, task: current };
        const at = yield* now;
        const next: Task = { ...current, version: advance(current.version), updatedAt: at };
        if (!(yield* tasks.updateTask(next, current.version))) {
          if (expectedVersion !== undefined || attemptsLeft <= 1) {
            return yield* staleWrite("task", Effect.map(tasks.findTask(taskId), (t) => t ?? undefined), expectedVersion);
          }
          return yield* write(attemptsLeft - 1);
        }
        let stored: TaskFieldValue | null = null;
        if (value === null) yield* repo.clearValue(taskId, fieldId);
        else {
          stored = { workspaceId: next.workspaceId, projectId: next.projectId, taskId, fieldId, value, updatedBy: userId, updatedAt: at };
          yield* repo.setValue(stored);
        }
        yield* recordTaskFact({
          task: next,
          actorId: userId,
          kind: "task.field_set",
          data: { field_id: fieldId, field_name: field.name, value, previous_value: previous?.value ?? null },
        });
        return { value: stored, task: next };
      });
    return yield* (yield* Transactions).run(write(bumpAttempts));
  }).pipe(withSpan("Projects.setTaskFieldValue"));

/** A visible task's field values. */
export const listTaskFieldValues = (principal: Principal, taskId: TaskId): Effect.Effect<ReadonlyArray<TaskFieldValue>, Forbidden | NotFound, CustomFieldServices> =>
  Effect.gen(function* () {
    const userId = yield* requireUser(principal);
    const { access } = yield* taskAccess(userId, taskId);
    yield* requireRight(access, "read");
    return yield* (yield* CustomFieldsRepository).listValues(taskId);
  });
