/**
 * A stored row is read through its record's one Schema (adapters/sql/RowCodec.ts): a value the
 * record does not allow (a status outside the workflow, JSON that no longer fits) is refused as
 * a defect, never cast into the record, on SQLite and Postgres.
 */
import t from "tap";
import { featuresFor } from "../../adapters/sql/featuresFor.js";
import { RowDoesNotFit, rowCodec } from "../../adapters/sql/RowCodec.js";
import { SavedView } from "../../core/projects/model/SavedView.js";
import { Task } from "../../core/projects/model/Task.js";
import { forEachDialect } from "../support/databases.js";
import { ProjectId, SavedViewId, TaskId, WorkspaceId } from "../../core/projects/model/Ids.js";

const at = new Date("2026-01-02T03:04:05.000Z");
const task: Task = {
  id: TaskId.make("7d3c1d3e-0000-4000-8000-000000000001"),
  workspaceId: WorkspaceId.make("w"),
  projectId: ProjectId.make("p"),
  title: "Write the spec",
  status: "in_progress",
  assigneeId: null,
  rank: "m",
  version: 3,
  deletedAt: null,
  createdBy: "u",
  createdAt: at,
  updatedAt: at,
};

forEachDialect(t, "a stored task status outside the workflow is refused, never cast", async (t, db) => {
  const tasks = rowCodec(Task, featuresFor(db));
  const row = tasks.toRow(task);
  t.same(tasks.fromRow(row), task, "a row that fits reads back as the same record");
  t.throws(() => tasks.fromRow({ ...row, status: "archived" }), RowDoesNotFit, "an unknown status is a defect");
  t.throws(() => tasks.fromRow({ ...row, title: null }), RowDoesNotFit, "a missing required value is a defect");
});

forEachDialect(t, "stored JSON that no longer fits its record is refused, never cast", async (t, db) => {
  const f = featuresFor(db);
  const views = rowCodec(SavedView, f);
  const view: SavedView = {
    id: SavedViewId.make("v"),
    workspaceId: WorkspaceId.make("w"),
    projectId: ProjectId.make("p"),
    userId: "u",
    name: "Mine",
    filters: { status: ["todo"] },
    sort: { by: "rank", direction: "asc" },
    createdAt: at,
  };
  // A JSON column as the driver hands it back: parsed by pg, text from SQLite.
  const stored = (value: unknown) => (db.dialect === "postgres" ? value : f.jsonToDb(value));
  const row = { ...views.toRow(view), filters: stored(view.filters), sort: stored(view.sort) };
  t.same(views.fromRow(row), view, "a row that fits reads back as the same record");
  t.throws(() => views.fromRow({ ...row, filters: stored({ status: ["archived"] }) }), RowDoesNotFit, "a filter on an unknown status");
  t.throws(() => views.fromRow({ ...row, sort: stored({ by: "colour", direction: "asc" }) }), RowDoesNotFit, "a sort on an unknown key");
});
