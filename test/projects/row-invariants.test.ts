/**
 * The module's state rules hold in the database itself, not only in the code that writes the
 * rows (a second writer, a script or a buggy repository cannot break them): SQLite and Postgres.
 *
 * - Tasks (spec, States; Relationships 1, 3, 5; Versioning): a status moves only along the
 *   workflow table (docs/decisions.md: todo → in_progress → done, in_progress → todo,
 *   done → todo); "a task never crosses workspace or project"; every accepted change is a new,
 *   greater version ("projections use it to drop stale events"); tasks are "soft-deleted and
 *   kept for restore and audit", never removed.
 */
import t from "tap";
import { sql } from "kysely";
import { createProject } from "../../core/projects/Projects.js";
import { createTask } from "../../core/projects/CreateTask.js";
import { updateTask } from "../../core/projects/UpdateTask.js";
import { createWorkspace } from "../../core/projects/Workspaces.js";
import { forEachDialect } from "../support/databases.js";
import { newUser, projectsRuntime } from "./support.js";

const outcome = (run: () => Promise<unknown>) =>
  run().then(
    () => "accepted",
    () => "refused",
  );

t.test("a task's status moves only along the workflow table, also in the database", (t) =>
  forEachDialect(t, "task status moves", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const task = await run(createTask(owner, project.id, { title: "Ship it" }));
    const move = (to: string) => () => sql`UPDATE pm_tasks SET status = ${to}, version = version + 1 WHERE id = ${task.id}`.execute(db.db);
    t.equal(await outcome(move("done")), "refused", "todo → done (skipping the work) is refused");
    t.equal(await outcome(move("in_progress")), "accepted", "todo → in_progress");
    t.equal(await outcome(move("done")), "accepted", "in_progress → done");
    t.equal(await outcome(move("in_progress")), "refused", "done → in_progress (without reopening) is refused");
    t.equal(await outcome(move("todo")), "accepted", "done → todo (reopen)");
    // The code's own moves still pass through the trigger.
    const current = (await db.db.selectFrom("pm_tasks").select("version").where("id", "=", task.id).executeTakeFirstOrThrow()).version;
    const moved = await run(updateTask(owner, task.id, Number(current), { status: "in_progress" }));
    t.equal(moved.status, "in_progress", "a PATCH along the table is accepted");
  }),
);

t.test("a task never crosses workspace or project, every change is a new version, and a task is never removed (database)", (t) =>
  forEachDialect(t, "task rows", async (t, db) => {
    const { run } = projectsRuntime(t, db);
    const owner = newUser();
    const { workspace } = await run(createWorkspace(owner, { name: "Acme" }));
    const { project } = await run(createProject(owner, workspace.id, { name: "Launch" }));
    const { project: other } = await run(createProject(owner, workspace.id, { name: "Other" }));
    const task = await run(createTask(owner, project.id, { title: "Stay here" }));
    const write = (statement: ReturnType<typeof sql>) => () => statement.execute(db.db);
    t.equal(
      await outcome(write(sql`UPDATE pm_tasks SET project_id = ${other.id}, version = version + 1 WHERE id = ${task.id}`)),
      "refused",
      "moving a task to another project of the same workspace is refused",
    );
    t.equal(await outcome(write(sql`UPDATE pm_tasks SET created_by = 'someone else', version = version + 1 WHERE id = ${task.id}`)), "refused", "its creator never changes");
    t.equal(await outcome(write(sql`UPDATE pm_tasks SET title = 'Silent' WHERE id = ${task.id}`)), "refused", "a change without a new version is refused");
    t.equal(await outcome(write(sql`UPDATE pm_tasks SET title = 'Older', version = 0 + 1 WHERE id = ${task.id} AND version = 1`)), "refused", "a version never stays or goes back");
    t.equal(await outcome(write(sql`UPDATE pm_tasks SET title = 'Newer', version = version + 1 WHERE id = ${task.id}`)), "accepted", "a change with the next version is accepted");
    t.equal(await outcome(write(sql`DELETE FROM pm_tasks WHERE id = ${task.id}`)), "refused", "a task is never removed (soft delete only)");
    const row = await db.db.selectFrom("pm_tasks").select(["project_id", "title", "version"]).where("id", "=", task.id).executeTakeFirstOrThrow();
    t.same({ ...row, version: Number(row.version) }, { project_id: project.id, title: "Newer", version: 2 }, "only the accepted change is stored");
  }),
);
