/**
 * Contract kit for the CustomFieldsRepository: a field name is unique within its project; a
 * project's fields are listed by name and counted; a task's value is set (upserted), read back
 * as a string or a number, and cleared (false when none was set).
 */
import { Effect } from "effect";
import type { CustomField } from "../../../core/projects/model/CustomField.js";
import type { Project } from "../../../core/projects/model/Project.js";
import type { TaskFieldValue } from "../../../core/projects/model/TaskFieldValue.js";
import { CustomFieldsRepository } from "../../../ports/projects/CustomFieldsRepository.js";
import type { TasksRepository } from "../../../ports/projects/TasksRepository.js";
import { at, runCases, T0, type KitCase, type SuiteOptions } from "../Kit.js";
import { seedProject, seedProjectWithTasks, uid, type SeedPorts } from "./fixtures.js";
import { CustomFieldId, TaskId } from "../../../core/projects/model/Ids.js";

/** The ports this kit needs. */
export type CustomFieldsKitPorts = CustomFieldsRepository | TasksRepository | SeedPorts;

const fields = <A>(f: (r: CustomFieldsRepository) => Effect.Effect<A>) => Effect.flatMap(CustomFieldsRepository, f);

/** Field `n` of `project`. */
export const customFieldRecord = (project: Project, n: number, name: string, overrides: Partial<CustomField> = {}): CustomField => ({
  id: CustomFieldId.make(uid("fld", n)),
  workspaceId: project.workspaceId,
  projectId: project.id,
  name,
  type: "text",
  options: [],
  createdBy: "user-1",
  createdAt: T0,
  ...overrides,
});

const valueOf = (project: Project, taskN: number, fieldN: number, value: string | number, updatedAt: Date = T0): TaskFieldValue => ({
  workspaceId: project.workspaceId,
  projectId: project.id,
  taskId: TaskId.make(uid("task", taskN)),
  fieldId: CustomFieldId.make(uid("fld", fieldN)),
  value,
  updatedBy: "user-1",
  updatedAt,
});

const seed = seedProjectWithTasks;

/** The cases of the custom fields repository kit. */
export const customFieldsCases: ReadonlyArray<KitCase<CustomFieldsKitPorts>> = [
  {
    name: "custom fields: a name is unique within its project; fields are listed by name and counted",
    run: async (t, run) => {
      const project = await run(seed);
      const other = await run(seedProject(1, 2));
      const select = customFieldRecord(project, 1, "Priority", { type: "single_select", options: ["low", "high"] });
      t.equal(await run(fields((r) => r.insertField(select))), true);
      t.equal(await run(fields((r) => r.insertField(customFieldRecord(project, 2, "Estimate", { type: "number" })))), true);
      t.equal(await run(fields((r) => r.insertField(customFieldRecord(project, 3, "Priority")))), false, "the name is taken in this project");
      t.equal(await run(fields((r) => r.insertField(customFieldRecord(other, 4, "Priority")))), true, "another project may use it");
      t.same(await run(fields((r) => r.findField(uid("fld", 1)))), select, "reads back as written (options included)");
      t.equal(await run(fields((r) => r.findField(uid("fld", 3)))), null, "the refused field was not written");
      t.same((await run(fields((r) => r.listFields(project.id)))).map((f) => f.name), ["Estimate", "Priority"]);
      t.equal(await run(fields((r) => r.countFields(project.id))), 2);
      t.equal(await run(fields((r) => r.countFields(uid("prj", 9)))), 0);
    },
  },
  {
    name: "custom fields: a value is upserted, read back with its type, and cleared once",
    run: async (t, run) => {
      const project = await run(seed);
      await run(fields((r) => r.insertField(customFieldRecord(project, 1, "Notes"))));
      await run(fields((r) => r.insertField(customFieldRecord(project, 2, "Estimate", { type: "number" }))));
      await run(fields((r) => r.setValue(valueOf(project, 1, 1, "first"))));
      await run(fields((r) => r.setValue(valueOf(project, 1, 1, "second", at(5)))));
      await run(fields((r) => r.setValue(valueOf(project, 1, 2, 3.5))));
      await run(fields((r) => r.setValue(valueOf(project, 2, 2, 8))));
      t.same(await run(fields((r) => r.findValue(uid("task", 1), uid("fld", 1)))), valueOf(project, 1, 1, "second", at(5)), "the second set replaced the first");
      t.same(await run(fields((r) => r.findValue(uid("task", 1), uid("fld", 2)))), valueOf(project, 1, 2, 3.5), "a number stays a number");
      t.same(
        [...(await run(fields((r) => r.listValues(uid("task", 1)))))].map((v) => v.fieldId).sort(),
        [uid("fld", 1), uid("fld", 2)],
        "the task's values only",
      );
      t.equal(await run(fields((r) => r.clearValue(uid("task", 1), uid("fld", 1)))), true);
      t.equal(await run(fields((r) => r.clearValue(uid("task", 1), uid("fld", 1)))), false, "none set any more");
      t.equal(await run(fields((r) => r.findValue(uid("task", 1), uid("fld", 1)))), null);
      t.same(await run(fields((r) => r.findValue(uid("task", 2), uid("fld", 2)))), valueOf(project, 2, 2, 8), "another task's value stays");
    },
  },
];

/** Runs the custom fields repository kit. */
export const customFieldsSuite = (options: SuiteOptions<CustomFieldsKitPorts>): Promise<unknown> => runCases(options, customFieldsCases);
