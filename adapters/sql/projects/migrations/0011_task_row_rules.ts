/**
 * Projects migration 11: the task rules hold in the database (spec, States; Relationships 1, 3,
 * 5; Versioning). The code's update is conditional on the version it read; the database now also
 * refuses, on both dialects:
 * - a status move the workflow table does not have, as core/projects/TaskWorkflow.ts
 *   `transitions` stood when this was written: todo → in_progress, in_progress → todo | done,
 *   done → todo (docs/decisions.md, "Project management (first slice)");
 * - a change of what places the task (id, workspace, project) or of its creator: "a task never
 *   crosses workspace or project";
 * - an update that does not advance the version: every accepted change is a new, greater version,
 *   which projections use to drop stale events (a silent change would be invisible to them);
 * - a DELETE: tasks are soft-deleted and kept for restore and audit.
 * `created_at` and the other columns stay writable (test fixtures shape sort keys with them).
 */
import type { Migration } from "../../Migration.js";

const moves = ["todo>in_progress", "in_progress>todo", "in_progress>done", "done>todo"].map((m) => `'${m}'`).join(", ");

const placing = ["id", "workspace_id", "project_id", "created_by"];

/** Migration 11 of the projects module. */
export const projectsMigration0011TaskRowRules: Migration = {
  version: 11,
  name: "task_row_rules",
  sqlite: [
    `CREATE TRIGGER pm_tasks_never_deleted BEFORE DELETE ON pm_tasks
     BEGIN SELECT RAISE(ABORT, 'pm_tasks: tasks are soft-deleted, never removed'); END`,
    `CREATE TRIGGER pm_tasks_placement_fixed BEFORE UPDATE ON pm_tasks
     WHEN ${placing.map((c) => `NEW.${c} IS NOT OLD.${c}`).join(" OR ")}
     BEGIN SELECT RAISE(ABORT, 'pm_tasks: a task never crosses workspace or project'); END`,
    `CREATE TRIGGER pm_tasks_version_advances BEFORE UPDATE ON pm_tasks
     WHEN NEW.version <= OLD.version
     BEGIN SELECT RAISE(ABORT, 'pm_tasks: every change of a task is a new, greater version'); END`,
    `CREATE TRIGGER pm_tasks_status_moves BEFORE UPDATE OF status ON pm_tasks
     WHEN NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves})
     BEGIN SELECT RAISE(ABORT, 'pm_tasks: this status move is not in the workflow'); END`,
  ],
  postgres: [
    `CREATE FUNCTION pm_tasks_never_deleted() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       RAISE EXCEPTION 'pm_tasks: tasks are soft-deleted, never removed' USING ERRCODE = 'restrict_violation';
     END $$`,
    `CREATE TRIGGER pm_tasks_never_deleted BEFORE DELETE ON pm_tasks FOR EACH ROW EXECUTE FUNCTION pm_tasks_never_deleted()`,
    `CREATE FUNCTION pm_tasks_row_rules() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF ${placing.map((c) => `NEW.${c} IS DISTINCT FROM OLD.${c}`).join(" OR ")} THEN
         RAISE EXCEPTION 'pm_tasks: a task never crosses workspace or project' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.version <= OLD.version THEN
         RAISE EXCEPTION 'pm_tasks: every change of a task is a new, greater version' USING ERRCODE = 'check_violation';
       END IF;
       IF NEW.status <> OLD.status AND (OLD.status || '>' || NEW.status) NOT IN (${moves}) THEN
         RAISE EXCEPTION 'pm_tasks: this status move is not in the workflow' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER pm_tasks_row_rules BEFORE UPDATE ON pm_tasks FOR EACH ROW EXECUTE FUNCTION pm_tasks_row_rules()`,
  ],
};
