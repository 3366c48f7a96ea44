/**
 * Projects migration 17: the dependency audit (spec, What the service does: "Permission,
 * membership, deletion and automation actions record actor and reason"). One append-only row per
 * dependency added or removed — actor, reason, time — written in the change's transaction; the
 * task pair references its tasks by the composite tenant key. The database refuses UPDATE and
 * DELETE of it, as of the membership audit.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const text = dialect === "sqlite" ? "TEXT" : "text";
  const time = dialect === "sqlite" ? "TEXT" : "timestamptz";
  return [
    `CREATE TABLE pm_dependency_audit (
      id ${text} PRIMARY KEY,
      workspace_id ${text} NOT NULL,
      project_id ${text} NOT NULL,
      task_id ${text} NOT NULL,
      blocked_by_id ${text} NOT NULL,
      actor_id ${text} NOT NULL,
      action ${text} NOT NULL CHECK (action IN ('dependency.added', 'dependency.removed')),
      reason ${text} NOT NULL CHECK (length(reason) BETWEEN 1 AND 500),
      created_at ${time} NOT NULL,
      FOREIGN KEY (workspace_id, project_id, task_id) REFERENCES pm_tasks (workspace_id, project_id, id),
      FOREIGN KEY (workspace_id, project_id, blocked_by_id) REFERENCES pm_tasks (workspace_id, project_id, id)
    )`,
    `CREATE INDEX pm_dependency_audit_task ON pm_dependency_audit (task_id, created_at)`,
    ...appendOnlyTriggersSql(dialect, "pm_dependency_audit"),
  ];
};

/** Migration 17 of the projects module. */
export const projectsMigration0017DependencyAudit: Migration = {
  version: 17,
  name: "dependency_audit",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
