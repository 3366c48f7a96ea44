/**
 * The access read of the project module on SQL: a project row (alias `p`) joined with one user's
 * workspace membership (`wm`) and project membership (`pm`), so an access check is one statement.
 * Shared by the projects repository (a project) and the tasks repository (a task's project).
 */
import type { SelectQueryBuilder } from "kysely";
import { ProjectRole, WorkspaceRole } from "../../../core/projects/model/Roles.js";
import { RowDoesNotFit, type Row } from "../RowCodec.js";

/** `query` (over pm_projects as `p`) with the user's two memberships left-joined. */
export const joinRoles = <O>(query: SelectQueryBuilder<any, any, O>, userId: string): SelectQueryBuilder<any, any, O> =>
  query
    .leftJoin("pm_workspace_members as wm", (join) => join.onRef("wm.workspace_id", "=", "p.workspace_id").on("wm.user_id", "=", userId))
    .leftJoin("pm_project_members as pm", (join) => join.onRef("pm.project_id", "=", "p.id").on("pm.user_id", "=", userId));

/** The role columns `readRoles` reads, to add to the SELECT list. */
export const roleColumns = ["wm.role as workspace_role", "pm.role as project_role"] as const;

const workspaceRoles: ReadonlySet<unknown> = new Set(WorkspaceRole.literals);
const projectRoles: ReadonlySet<unknown> = new Set(ProjectRole.literals);

const roleOf = <R extends string>(allowed: ReadonlySet<unknown>, column: string, value: unknown): R | null => {
  if (value === null || value === undefined) return null;
  if (!allowed.has(value)) throw new RowDoesNotFit(`column ${column}: ${String(value)} is not an allowed value`);
  return value as R;
};

/** The two roles of a joined row (null: no such membership). */
export const readRoles = (row: Row): { readonly workspaceRole: WorkspaceRole | null; readonly projectRole: ProjectRole | null } => ({
  workspaceRole: roleOf<WorkspaceRole>(workspaceRoles, "workspace_role", row.workspace_role),
  projectRole: roleOf<ProjectRole>(projectRoles, "project_role", row.project_role),
});
