/**
 * The project module's tables for SQLite and Postgres (prefix `pm_`). The workspace is the
 * tenant: every table carries workspace_id, and references are composite — (workspace_id,
 * project_id) to a project, (workspace_id, project_id, task_id) to a task — so a row can never
 * point into another workspace. Roles and statuses have CHECKs, task versions are > 0,
 * memberships, client mutation ids and notifications are UNIQUE as the spec states, and task
 * events and the membership audit are append-only (the database refuses UPDATE and DELETE).
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const tables = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  const json = dialect === "sqlite" ? "TEXT" : "jsonb";
  const int = dialect === "sqlite" ? "INTEGER" : "integer";
  // Rank keys compare byte-wise on both dialects (Postgres would otherwise use the locale).
  const rankType = dialect === "sqlite" ? "TEXT" : `text COLLATE "C"`;
  return [
    `CREATE TABLE pm_workspaces (
      id ${text} PRIMARY KEY,
      name ${text} NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      created_by ${text} NOT NULL,
      created_at ${time} NOT NULL
    )`,
    `CREATE TABLE pm_workspace_members (
      workspace_id ${text} NOT NULL REFERENCES pm_workspaces (id),
      user_id ${text} NOT NULL,
      role ${text} NOT NULL CHECK (role IN ('owner', 'member', 'guest')),
      created_at ${time} NOT NULL,
      PRIMARY KEY (workspace_id, user_id)
    )`,
    `CREATE INDEX pm_workspace_members_user ON pm_workspace_members (user_id, role)`,
    `CREATE TABLE pm_projects (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL REFERENCES pm_workspaces (id),
      name ${text} NOT NULL CHECK (length(name) BETWEEN 1 AND 200),
      created_by ${text} NOT NULL,
      created_at ${time} NOT NULL,
      UNIQUE (workspace_id, id)
    )`,
    `CREATE TABLE pm_project_members (
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      user_id ${text} NOT NULL,
      role ${text} NOT NULL CHECK (role IN ('admin', 'contributor', 'commenter', 'viewer')),
      added_by ${text} NOT NULL,
      created_at ${time} NOT NULL,
      UNIQUE (project_id, user_id),
      FOREIGN KEY (workspace_id, project_id) REFERENCES pm_projects (workspace_id, id),
      FOREIGN KEY (workspace_id, user_id) REFERENCES pm_workspace_members (workspace_id, user_id)
    )`,
    `CREATE INDEX pm_project_members_user ON pm_project_members (user_id, workspace_id)`,
    `CREATE TABLE pm_tasks (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      title ${text} NOT NULL CHECK (length(title) BETWEEN 1 AND 500),
      status ${text} NOT NULL CHECK (status IN ('todo', 'in_progress', 'done')),
      assignee_id ${text},
      rank ${rankType} NOT NULL CHECK (length(rank) BETWEEN 1 AND 1024),
      version ${int} NOT NULL CHECK (version > 0),
      deleted_at ${time},
      created_by ${text} NOT NULL,
      created_at ${time} NOT NULL,
      updated_at ${time} NOT NULL,
      UNIQUE (workspace_id, project_id, id),
      FOREIGN KEY (workspace_id, project_id) REFERENCES pm_projects (workspace_id, id)
    )`,
    `CREATE INDEX pm_tasks_order ON pm_tasks (project_id, rank, id)`,
    `CREATE TABLE pm_comments (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      task_id ${text} NOT NULL,
      author_id ${text} NOT NULL,
      body ${text} NOT NULL CHECK (length(body) BETWEEN 1 AND 10000),
      mentions ${json} NOT NULL,
      client_mutation_id ${text} NOT NULL CHECK (length(client_mutation_id) BETWEEN 1 AND 255),
      created_at ${time} NOT NULL,
      UNIQUE (author_id, task_id, client_mutation_id),
      FOREIGN KEY (workspace_id, project_id, task_id) REFERENCES pm_tasks (workspace_id, project_id, id)
    )`,
    `CREATE INDEX pm_comments_task ON pm_comments (task_id, id)`,
    `CREATE TABLE pm_task_events (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      task_id ${text} NOT NULL,
      actor_id ${text} NOT NULL,
      kind ${text} NOT NULL,
      data ${json} NOT NULL,
      created_at ${time} NOT NULL,
      FOREIGN KEY (workspace_id, project_id, task_id) REFERENCES pm_tasks (workspace_id, project_id, id)
    )`,
    `CREATE INDEX pm_task_events_feed ON pm_task_events (project_id, created_at, id)`,
    ...appendOnlyTriggersSql(dialect, "pm_task_events"),
    `CREATE TABLE pm_notifications (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL REFERENCES pm_workspaces (id),
      recipient_id ${text} NOT NULL,
      event_id ${text} NOT NULL,
      kind ${text} NOT NULL,
      data ${json} NOT NULL,
      read_at ${time},
      created_at ${time} NOT NULL,
      UNIQUE (recipient_id, event_id)
    )`,
    `CREATE TABLE pm_membership_audit (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL REFERENCES pm_workspaces (id),
      project_id ${text},
      user_id ${text} NOT NULL,
      actor_id ${text} NOT NULL,
      action ${text} NOT NULL,
      role ${text},
      reason ${text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      created_at ${time} NOT NULL,
      FOREIGN KEY (workspace_id, project_id) REFERENCES pm_projects (workspace_id, id)
    )`,
    ...appendOnlyTriggersSql(dialect, "pm_membership_audit"),
  ];
};

/** Version 1 of the projects module: its first tables. */
export const projectsMigration0001: Migration = { version: 1, name: "project_tables", sqlite: tables("sqlite"), postgres: tables("postgres") };
