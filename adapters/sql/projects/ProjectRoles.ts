/**
 * The access read of the project module on SQL: a project row (alias `p`) joined with one user's
 * workspace membership (`wm`) and project membership (`pm`), so an access check is one statement.
 * Shared by the projects repository (a project) and the tasks repository (a task's project).
 */
import { Schema } from "effect";
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

const isWorkspaceRole = Schema.is(WorkspaceRole);
const isProjectRole = Schema.is(ProjectRole);

const roleOf = <R extends string>(is: (u: unknown) => u is R, column: string, value: unknown): R | null => {
  if (value === null || value === undefined) return null;
  if (!is(value)) throw new RowDoesNotFit(`column ${column}: ${String(value)} is not an allowed value`);
  return value;
};

/** The two roles of a joined row (null: no such membership). */
export const readRoles = (row: Row): { readonly workspaceRole: WorkspaceRole | null; readonly projectRole: ProjectRole | null } => ({
  workspaceRole: roleOf(isWorkspaceRole, "workspace_role", row.workspace_role),
  projectRole: roleOf(isProjectRole, "project_role", row.project_role),
});
