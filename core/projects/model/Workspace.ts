/** The tenant, and the caller's view of it. */
import { Schema } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { WorkspaceRole } from "./Roles.js";
import { WorkspaceId } from "./Ids.js";

/** The tenant. */
export const Workspace = Schema.Struct({
  id: WorkspaceId,
  name: Schema.String,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type Workspace = typeof Workspace.Type;

/** A workspace with the caller's role, as its members see it. */
export const WorkspaceWithRole = Schema.Struct({ ...Workspace.fields, role: WorkspaceRole });
export type WorkspaceWithRole = typeof WorkspaceWithRole.Type;

/** Wire shape of a workspace for a caller holding `role`. */
export const WorkspaceView = wireShape(WorkspaceWithRole);
