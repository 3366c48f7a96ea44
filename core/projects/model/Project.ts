/** A project of one workspace, and the caller's view of it. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ProjectRole } from "./Roles.js";
import { ProjectId, WorkspaceId } from "./Ids.js";

/** A project of one workspace. */
export const Project = Schema.Struct({
  id: ProjectId,
  workspaceId: WorkspaceId,
  name: Schema.String,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type Project = typeof Project.Type;

/** A project with the caller's effective role. */
export const ProjectWithRole = Schema.Struct({ ...Project.fields, role: ProjectRole });
export type ProjectWithRole = typeof ProjectWithRole.Type;

/** Wire shape of a project for a caller with its effective role. */
export const ProjectView = wireShape(ProjectWithRole);
