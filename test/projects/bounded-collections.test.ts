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
