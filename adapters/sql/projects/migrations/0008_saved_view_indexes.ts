/**
 * Projects migration 8: indexes for the task list in a saved view's sort, so every order is a
 * keyset seek on (project_id, key, id) like the rank order's `pm_tasks_order`. Titles are
 * indexed byte-wise (COLLATE "C" on Postgres), the collation the list sorts them with. A field
 * filter is an EXISTS on the values' primary key (task_id, field_id) and needs no index.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const indexes = (dialect: SqlDialect): string[] => [
  `CREATE INDEX pm_tasks_order_created ON pm_tasks (project_id, created_at, id)`,
  `CREATE INDEX pm_tasks_order_updated ON pm_tasks (project_id, updated_at, id)`,
  dialect === "postgres"
    ? `CREATE INDEX pm_tasks_order_title ON pm_tasks (project_id, title COLLATE "C", id)`
    : `CREATE INDEX pm_tasks_order_title ON pm_tasks (project_id, title, id)`,
];

/** Migration 8 of the project module. */
export const projectsMigration0008SavedViewIndexes: Migration = {
  version: 8,
  name: "saved_view_indexes",
  sqlite: indexes("sqlite"),
  postgres: indexes("postgres"),
};
