/** A user's tenant-level membership. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { WorkspaceRole } from "./Roles.js";
import { WorkspaceId } from "./Ids.js";

/** A user's tenant-level membership. */
export const WorkspaceMember = Schema.Struct({
  workspaceId: WorkspaceId,
  userId: Schema.String,
  role: WorkspaceRole,
  createdAt: Schema.DateFromSelf,
});
export type WorkspaceMember = typeof WorkspaceMember.Type;

/** Wire shape of a workspace membership. */
export const WorkspaceMemberView = wireShape(WorkspaceMember);
