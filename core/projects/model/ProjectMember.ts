/** A user's membership of one project (unique per project and user). */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { ProjectRole } from "./Roles.js";
import { ProjectId, WorkspaceId } from "./Ids.js";

/** A user's membership of one project (unique per project and user). */
export const ProjectMember = Schema.Struct({
  workspaceId: WorkspaceId,
  projectId: ProjectId,
  userId: Schema.String,
  role: ProjectRole,
  addedBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type ProjectMember = typeof ProjectMember.Type;

/** Wire shape of a project membership. */
export const ProjectMemberView = wireShape(ProjectMember);
