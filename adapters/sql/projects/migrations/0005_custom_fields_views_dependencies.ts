/**
 * Projects migration 5: custom fields, saved views and task dependencies. Composite keys keep
 * everything inside one project of one workspace: a value's field and task, and both ends of a
 * dependency, reference (workspace_id, project_id, ...) of the same project; a task cannot
 * block itself; field names and view names are unique where the spec's users expect.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const tables = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  const json = dialect === "sqlite" ? "TEXT" : "jsonb";
  return [
    `CREATE TABLE pm_custom_fields (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      name ${text} NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      type ${text} NOT NULL CHECK (type IN ('text', 'number', 'date', 'single_select')),
      options ${json} NOT NULL,
      created_by ${text} NOT NULL,
      created_at ${time} NOT NULL,
      UNIQUE (project_id, name),
      UNIQUE (workspace_id, project_id, id),
      FOREIGN KEY (workspace_id, project_id) REFERENCES pm_projects (workspace_id, id)
    )`,
    `CREATE TABLE pm_task_field_values (
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      task_id ${text} NOT NULL,
      field_id ${text} NOT NULL,
      value ${json} NOT NULL,
      updated_by ${text} NOT NULL,
      updated_at ${time} NOT NULL,
      PRIMARY KEY (task_id, field_id),
      FOREIGN KEY (workspace_id, project_id, task_id) REFERENCES pm_tasks (workspace_id, project_id, id),
      FOREIGN KEY (workspace_id, project_id, field_id) REFERENCES pm_custom_fields (workspace_id, project_id, id)
    )`,
    `CREATE TABLE pm_saved_views (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      user_id ${text} NOT NULL,
      name ${text} NOT NULL CHECK (length(name) BETWEEN 1 AND 100),
      filters ${json} NOT NULL,
      sort ${json} NOT NULL,
      created_at ${time} NOT NULL,
      UNIQUE (project_id, user_id, name),
      FOREIGN KEY (workspace_id, project_id) REFERENCES pm_projects (workspace_id, id)
    )`,
    `CREATE TABLE pm_task_dependencies (
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      task_id ${text} NOT NULL,
      blocked_by_id ${text} NOT NULL,
      created_by ${text} NOT NULL,
      created_at ${time} NOT NULL,
      PRIMARY KEY (task_id, blocked_by_id),
      CHECK (task_id <> blocked_by_id),
      FOREIGN KEY (workspace_id, project_id, task_id) REFERENCES pm_tasks (workspace_id, project_id, id),
      FOREIGN KEY (workspace_id, project_id, blocked_by_id) REFERENCES pm_tasks (workspace_id, project_id, id)
    )`,
    `CREATE INDEX pm_task_dependencies_blocking ON pm_task_dependencies (blocked_by_id, task_id)`,
  ];
};

/** Migration 5 of the project module. */
export const projectsMigration0005CustomFieldsViewsDependencies: Migration = {
  version: 5,
  name: "custom_fields_views_dependencies",
  sqlite: tables("sqlite"),
  postgres: tables("postgres"),
};
