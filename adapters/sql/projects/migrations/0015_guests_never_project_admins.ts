/**
 * Projects migration 15: a workspace guest is never a project admin, in the database (spec,
 * Authentication 2: a guest reaches "explicitly shared projects only"; docs/decisions.md, first
 * slice and the ninth session's fix 3). The code checks it under the user's workspace membership
 * lock; the database now refuses, on both dialects, a project-admin membership (inserted or
 * changed to) for a user who is a guest of the workspace, and a change of a workspace member to
 * guest while it still administers a project of the workspace (a demotion lowers those roles
 * first, core/projects/Workspaces.ts `capProjectRoles`).
 */
import type { Migration } from "../../Migration.js";

const guestOf = (row: string) =>
  `EXISTS (SELECT 1 FROM pm_workspace_members w WHERE w.workspace_id = ${row}.workspace_id AND w.user_id = ${row}.user_id AND w.role = 'guest')`;
const adminIn = (row: string) =>
  `EXISTS (SELECT 1 FROM pm_project_members m WHERE m.workspace_id = ${row}.workspace_id AND m.user_id = ${row}.user_id AND m.role = 'admin')`;

/** Migration 15 of the projects module. */
export const projectsMigration0015GuestsNeverProjectAdmins: Migration = {
  version: 15,
  name: "guests_never_project_admins",
  sqlite: [
    `CREATE TRIGGER pm_project_members_no_guest_admin_insert BEFORE INSERT ON pm_project_members
     WHEN NEW.role = 'admin' AND ${guestOf("NEW")}
     BEGIN SELECT RAISE(ABORT, 'pm_project_members: a workspace guest is never a project admin'); END`,
    `CREATE TRIGGER pm_project_members_no_guest_admin_update BEFORE UPDATE ON pm_project_members
     WHEN NEW.role = 'admin' AND ${guestOf("NEW")}
     BEGIN SELECT RAISE(ABORT, 'pm_project_members: a workspace guest is never a project admin'); END`,
    `CREATE TRIGGER pm_workspace_members_no_guest_admin BEFORE UPDATE OF role ON pm_workspace_members
     WHEN NEW.role = 'guest' AND ${adminIn("NEW")}
     BEGIN SELECT RAISE(ABORT, 'pm_workspace_members: a project admin is not made a guest'); END`,
  ],
  postgres: [
    `CREATE FUNCTION pm_project_members_no_guest_admin() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.role = 'admin' AND ${guestOf("NEW")} THEN
         RAISE EXCEPTION 'pm_project_members: a workspace guest is never a project admin' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER pm_project_members_no_guest_admin BEFORE INSERT OR UPDATE ON pm_project_members FOR EACH ROW EXECUTE FUNCTION pm_project_members_no_guest_admin()`,
    `CREATE FUNCTION pm_workspace_members_no_guest_admin() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NEW.role = 'guest' AND ${adminIn("NEW")} THEN
         RAISE EXCEPTION 'pm_workspace_members: a project admin is not made a guest' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER pm_workspace_members_no_guest_admin BEFORE UPDATE OF role ON pm_workspace_members FOR EACH ROW EXECUTE FUNCTION pm_workspace_members_no_guest_admin()`,
  ],
};
