/**
 * Projects migration 22: a user's project memberships of a workspace in project order, so an
 * export walks the projects a member sees a page at a time (SqlExportsRepository
 * `visibleProjects`) instead of reading all of its memberships per statement. It replaces
 * pm_project_members_user (user_id, workspace_id), of which it is an extension.
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `CREATE INDEX pm_project_members_user_projects ON pm_project_members (user_id, workspace_id, project_id)`,
  `DROP INDEX pm_project_members_user`,
];

/** Migration 22 of the projects module. */
export const projectsMigration0022ProjectMembersByUserInProjectOrder: Migration = {
  version: 22,
  name: "project_members_by_user_in_project_order",
  sqlite: statements,
  postgres: statements,
};
