/**
 * Workspace and project roles and what each project role may do (spec, Authentication 2).
 * A workspace owner acts as admin of every project of the workspace; members and guests reach a
 * project only through a project membership; a guest can never be a project admin.
 */
import { ProjectRole, WorkspaceRole } from "./model/Roles.js";

export { ProjectRole, WorkspaceRole };

/** An action on a project that a role may or may not allow. */
export type ProjectRight = "read" | "comment" | "edit_tasks" | "manage_members";

const rights: Readonly<Record<ProjectRole, ReadonlySet<ProjectRight>>> = {
  admin: new Set(["read", "comment", "edit_tasks", "manage_members"]),
  contributor: new Set(["read", "comment", "edit_tasks"]),
  commenter: new Set(["read", "comment"]),
  viewer: new Set(["read"]),
};

/** True when `role` allows `right`. */
export const allows = (role: ProjectRole, right: ProjectRight): boolean => rights[role].has(right);

/** Whether a workspace role may hold `projectRole` (guests are never project admins). */
export const mayHoldProjectRole = (workspaceRole: WorkspaceRole, projectRole: ProjectRole): boolean =>
  !(workspaceRole === "guest" && projectRole === "admin");

/** The strongest project role a workspace role may hold: a guest at most contributes. */
export const strongestProjectRoleFor = (workspaceRole: WorkspaceRole): ProjectRole => (workspaceRole === "guest" ? "contributor" : "admin");

/** Whether a workspace role may create projects (guests only see what is shared with them). */
export const mayCreateProjects = (workspaceRole: WorkspaceRole): boolean => workspaceRole !== "guest";
