/**
 * Custom fields (issue 3 should-have: "per-project definitions: text, number, date,
 * single-select; validated values on tasks"): only a project admin defines them, names are
 * unique per project, values are validated by type, a field of another project cannot be set on
 * a task, and the database refuses a value whose field and task are in different projects —
 * SQLite and Postgres.
 */
import t from "tap";
import { dialects } from "../support/databases.js";
import { startFilesServer } from "../blob/filesHost.js";
import { projectFixture } from "./support.js";

for (const dialect of dialects) {
  t.test(`custom fields are defined by admins and their values validated by type [${dialect}]`, async (t) => {
    const host = await startFilesServer(t, dialect);
    const { owner, workspaceId, projectId, clients } = await projectFixture(host.client, {
      dev: { workspace: "member", project: "contributor" },
      reader: { workspace: "guest", project: "viewer" },
    });
    const dev = clients.dev!;
    const define = (body: unknown, who = owner) => who.call("POST", `/v1/projects/${projectId}/fields`, body);
    const text = await define({ name: "Notes", type: "text" });
    t.equal(text.status, 201);
    const points = (await define({ name: "Points", type: "number" })).body;
    const due = (await define({ name: "Due", type: "date" })).body;
    const size = (await define({ name: "Size", type: "single_select", options: ["S", "M", "L"] })).body;
    t.equal((await define({ name: "Notes", type: "number" })).body.code, "custom_field_exists");
    t.equal((await define({ name: "X", type: "text" }, dev)).status, 403, "a contributor cannot define fields");
    t.equal((await define({ name: "Bad", type: "single_select" })).status, 422, "a select needs options");
    t.equal((await define({ name: "Bad", type: "text", options: ["a"] })).status, 422, "only selects have options");
    const listed = await clients.reader!.call("GET", `/v1/projects/${projectId}/fields`);
    t.same(listed.body.data.map((f: { name: string }) => f.name), ["Due", "Notes", "Points", "Size"]);

    const task = await owner.call("POST", `/v1/projects/${projectId}/tasks`, { title: "Estimate" });
    const set = (fieldId: string, value: unknown, who = dev) => who.call("PUT", `/v1/tasks/${task.body.id}/fields/${fieldId}`, { value });
    t.equal((await set(points.id, 5)).status, 200);
    t.equal((await set(points.id, "5")).status, 422, "a number field refuses text");
    t.equal((await set(due.id, "2026-02-28")).status, 200);
    t.equal((await set(due.id, "2026-02-30")).status, 422, "not a calendar date");
    t.equal((await set(size.id, "XL")).status, 422, "not one of the options");
    t.equal((await set(size.id, "M")).status, 200);
    t.equal((await set(text.body.id, "x".repeat(2001))).status, 422);
    t.equal((await set(text.body.id, "ok")).status, 200);
    t.equal((await set(text.body.id, null)).status, 204, "null clears");
    t.equal((await set(points.id, 8, clients.reader!)).status, 403, "a viewer cannot set values");
    const values = await clients.reader!.call("GET", `/v1/tasks/${task.body.id}/fields`);
    t.same(
      Object.fromEntries(values.body.data.map((v: { field_id: string; value: unknown }) => [v.field_id, v.value])),
      { [points.id]: 5, [due.id]: "2026-02-28", [size.id]: "M" },
    );

    const other = await owner.call("POST", `/v1/workspaces/${workspaceId}/projects`, { name: "Other" });
    const foreign = (await owner.call("POST", `/v1/projects/${other.body.id}/fields`, { name: "Foreign", type: "number" })).body;
    const cross = await set(foreign.id, 1);
    t.equal(cross.status, 422, "a field of another project is not a field of this task");
    const row = { workspace_id: workspaceId, project_id: projectId, task_id: task.body.id, field_id: foreign.id, value: "1", updated_by: owner.userId, updated_at: new Date().toISOString() };
    await t.rejects(host.db.db.insertInto("pm_task_field_values").values(row).execute(), "the database refuses a cross-project value");
    const outsider = await host.client();
    t.equal((await outsider.call("GET", `/v1/projects/${projectId}/fields`)).status, 404);
    t.equal((await outsider.call("PUT", `/v1/tasks/${task.body.id}/fields/${points.id}`, { value: 1 })).status, 404);
  });
}
