/**
 * A direct grant of a role on a node to a workspace member. Grants inherit down the tree; the
 * check resolves ancestors and current membership (Access.ts).
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { NodeId, WorkspaceId } from "./Ids.js";

/** viewer (list, read, download) < editor (+ upload, create, rename, move, trash, restore) < owner (+ ACL, share links). */
export const NodeRole = Schema.Literal("viewer", "editor", "owner");
export type NodeRole = typeof NodeRole.Type;

/** The ACL entry record. */
export const AclEntry = Schema.Struct({
  workspaceId: WorkspaceId,
  nodeId: NodeId,
  userId: Schema.String,
  role: NodeRole,
  grantedBy: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type AclEntry = typeof AclEntry.Type;

export const AclEntryView = Schema.Struct(Struct.pick(AclEntry.fields, "nodeId", "userId", "role", "createdAt"));
export const AclEntryWire = wireShape(AclEntryView);
