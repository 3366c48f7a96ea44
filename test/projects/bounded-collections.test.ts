/**
 * Spec (Endpoints, rule 1: lists are keyset pages "unless a small bounded collection is
 * explicit"; docs/conventions.md, Limits: "every list ... has a bound"): a project's custom fields
 * (at most 100) and a user's saved views of a project (at most 50) are such bounded collections,
 * listed whole. The bound holds under concurrent creations too: creations racing at the last free
 * place leave exactly the bound, never more (their lists would silently drop the extra ones) —
 * SQLite and Postgres (parallel connections).
 */
import t from "tap";
import { createCustomField, maxFieldsPerProject, listCustomFields } from "../../core/projects/CustomFields.js";
import { createSavedView, listSavedViews, maxViewsPerProject } from "../../core/projects/SavedViews.js";
import { createTask } from "../../core/projects/CreateTask.js";
import { addDependency, listDependencies, maxEdgesPerTask } from "../../core/projects/Dependencies.js";
import { forEachDialect } from "../support/databases.js";
import { coreFixture } from "./notifications-support.js";
import { projectsRuntime } from "./support.js";

const racers = 4;

t.test("a project never holds more than its bound of custom fields, however many admins create them at once", (t) =>
  forEachDialect(t, "custom field bound", async (t, db) => {
    const { run, attempt } = projectsRuntime(t, db);
    const { owner, project } = await coreFixture(run);
    for (let i = 0; i < maxFieldsPerProject - 1; i++) await run(createCustomField(owner, project.id, { name: `Field ${i}`, type: "text" }));
    const outcomes = await Promise.all(
      Array.from({ length: racers }, (_, i) => attempt(createCustomField(owner, project.id, { name: `Racer ${i}`, type: "text" }))),
    );
    t.equal(outcomes.filter((o) => o.ok).length, 1, "exactly one creation takes the last place");
    for (const o of outcomes) if (!o.ok) t.match(o.error, { _tag: "ValidationFailed" }, "the others are 422, never a defect");
    t.equal((await run(listCustomFields(owner, project.id))).length, maxFieldsPerProject, "the list holds every field, the bound exactly");
  }),
);

t.test("a user never holds more than the bound of saved views of a project, even creating them at once", (t) =>
  forEachDialect(t, "saved view bound", async (t, db) => {
    const { run, attempt } = projectsRuntime(t, db);
    const { owner, project } = await coreFixture(run);
    const view = (name: string) => createSavedView(owner, project.id, { name, filters: {}, sort: { by: "rank", direction: "asc" } });
    for (let i = 0; i < maxViewsPerProject - 1; i++) await run(view(`View ${i}`));
    const outcomes = await Promise.all(Array.from({ length: racers }, (_, i) => attempt(view(`Racer ${i}`))));
    t.equal(outcomes.filter((o) => o.ok).length, 1, "exactly one creation takes the last place");
    for (const o of outcomes) if (!o.ok) t.match(o.error, { _tag: "ValidationFailed" }, "the others are 422, never a defect");
    t.equal((await run(listSavedViews(owner, project.id))).length, maxViewsPerProject, "the list holds every view, the bound exactly");
  }),
);

/**
 * The same bound for dependencies (docs/decisions.md slice 2; core/projects/Dependencies.ts: "a
 * task has at most 200 dependencies", listed whole in both directions): a task that blocks others
 * gains an edge each time, so the bound is checked on both ends of a new edge. It was checked only
 * on the blocked task, and a popular blocker's `blocking` list (read with LIMIT 200) silently lost
 * the edges past 200.
 */
t.test("a task's dependencies stay within the bound on both ends of an edge, so its lists are whole", (t) =>
  forEachDialect(t, "dependency bound", async (t, db) => {
    const { run, attempt } = projectsRuntime(t, db);
    const { owner, project } = await coreFixture(run);
    const blocker = await run(createTask(owner, project.id, { title: "Blocker" }));
    for (let i = 0; i < maxEdgesPerTask; i++) {
      const task = await run(createTask(owner, project.id, { title: `Blocked ${i}` }));
      await run(addDependency(owner, task.id, blocker.id));
    }
    const one = await run(createTask(owner, project.id, { title: "One too many" }));
    const refused = await attempt(addDependency(owner, one.id, blocker.id));
    t.match(refused, { ok: false, error: { _tag: "ValidationFailed" } }, "the blocker already has the bound of edges: 422");
    const listed = await run(listDependencies(owner, blocker.id));
    t.equal(listed.blocking.length, maxEdgesPerTask, "the blocker's list holds every edge it has");
  }),
);
