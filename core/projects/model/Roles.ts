/** The roles of the project module (spec, Authentication 2), as the records store them. */
import { Schema } from "effect";

/** Tenant-level role of a workspace membership. */
export const WorkspaceRole = Schema.Literal("owner", "member", "guest");
export type WorkspaceRole = typeof WorkspaceRole.Type;

/** Role of a project membership, weakest last. */
export const ProjectRole = Schema.Literal("admin", "contributor", "commenter", "viewer");
export type ProjectRole = typeof ProjectRole.Type;
