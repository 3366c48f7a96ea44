/**
 * A ProjectScope as a SQL condition on a row carrying `workspace_id` and `project_id` (`row`: its
 * table or alias). A list binds its ids; a user's visibility is two index probes per row (a
 * workspace it owns, by pm_workspace_members' key; a project membership, by its unique
 * (project_id, user_id)), so the statement's size never grows with the membership count.
 */
import { sql, type RawBuilder } from "kysely";
import { isListedScope, type ProjectScope } from "../../../ports/projects/ProjectScope.js";

/** The scope's condition on `row`; a list must not be empty (no query is needed for it). */
export const projectScopeSql = (row: string, scope: ProjectScope): RawBuilder<boolean> => {
  const workspaceId = sql.ref(`${row}.workspace_id`);
  const projectId = sql.ref(`${row}.project_id`);
  if (isListedScope(scope)) return sql<boolean>`${projectId} IN (${sql.join(scope.projectIds.map((id) => sql`${id}`))})`;
  const visible = sql<boolean>`(EXISTS (SELECT 1 FROM pm_workspace_members vw
      WHERE vw.workspace_id = ${workspaceId} AND vw.user_id = ${scope.visibleTo} AND vw.role = 'owner')
    OR EXISTS (SELECT 1 FROM pm_project_members vp WHERE vp.project_id = ${projectId} AND vp.user_id = ${scope.visibleTo}))`;
  return scope.workspaceId === undefined ? visible : sql<boolean>`${workspaceId} = ${scope.workspaceId} AND ${visible}`;
};

/** True when the scope can match nothing (an empty list). */
export const isEmptyScope = (scope: ProjectScope): boolean => isListedScope(scope) && scope.projectIds.length === 0;
