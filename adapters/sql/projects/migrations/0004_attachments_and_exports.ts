/**
 * Projects migration 4: task attachments and workspace exports. An attachment references its
 * task by the composite tenant key (workspace_id, project_id, task_id), so it can never point
 * into another workspace; its status, size and checksum have CHECKs, and its object key is
 * unique. Exports belong to a workspace and name their requester.
 */
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const tables = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  const big = dialect === "sqlite" ? "INTEGER" : "bigint";
  return [
    `CREATE TABLE pm_attachments (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      task_id ${text} NOT NULL,
      uploaded_by ${text} NOT NULL,
      filename ${text} NOT NULL CHECK (length(filename) BETWEEN 1 AND 255),
      content_type ${text} NOT NULL CHECK (length(content_type) BETWEEN 3 AND 255),
      size ${big} NOT NULL CHECK (size > 0),
      sha256 ${text} NOT NULL CHECK (length(sha256) = 64),
      object_key ${text} NOT NULL UNIQUE,
      status ${text} NOT NULL CHECK (status IN ('pending', 'quarantined', 'clean', 'infected', 'scan_failed', 'purging')),
      scan_detail ${text},
      upload_expires_at ${time} NOT NULL,
      completed_at ${time},
      scanned_at ${time},
      created_at ${time} NOT NULL,
      FOREIGN KEY (workspace_id, project_id, task_id) REFERENCES pm_tasks (workspace_id, project_id, id)
    )`,
    `CREATE INDEX pm_attachments_task ON pm_attachments (task_id, id)`,
    `CREATE INDEX pm_attachments_project ON pm_attachments (project_id, id)`,
    `CREATE INDEX pm_attachments_staging ON pm_attachments (upload_expires_at) WHERE status IN ('pending', 'purging')`,
    `CREATE TABLE pm_exports (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL REFERENCES pm_workspaces (id),
      requested_by ${text} NOT NULL,
      status ${text} NOT NULL CHECK (status IN ('pending', 'done', 'failed')),
      object_key ${text} NOT NULL UNIQUE,
      size ${big} CHECK (size >= 0),
      sha256 ${text},
      line_count ${big},
      error ${text},
      created_at ${time} NOT NULL,
      completed_at ${time},
      CHECK (status <> 'done' OR (size IS NOT NULL AND sha256 IS NOT NULL AND completed_at IS NOT NULL))
    )`,
    `CREATE INDEX pm_comments_export_page ON pm_comments (project_id, id)`,
    `CREATE INDEX pm_task_events_export_page ON pm_task_events (project_id, id)`,
  ];
};

/** Migration 4 of the project module. */
export const projectsMigration0004Attachments: Migration = {
  version: 4,
  name: "attachments_and_exports",
  sqlite: tables("sqlite"),
  postgres: tables("postgres"),
};
