/**
 * A node: a file or a folder in one workspace's tree. `version` is the optimistic version of
 * rename and move (ETag); names are unique among active (untrashed) siblings. A file's
 * `currentVersionId` is its one current published version (null until the first is published);
 * size, type and checksum mirror that version. `trashRootId` names the node whose trashing
 * trashed this one, so a restore brings back exactly that subtree. At the root, where each member
 * sees only the nodes granted to them, names are unique per `rootHolder` (RootNames.ts).
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { FileVersionId, NodeId, WorkspaceId } from "./Ids.js";

/** File or folder. */
export const NodeKind = Schema.Literal("file", "folder");
export type NodeKind = typeof NodeKind.Type;

/** The node record. */
export const Node = Schema.Struct({
  id: NodeId,
  workspaceId: WorkspaceId,
  parentId: Schema.NullOr(NodeId),
  name: Schema.String,
  kind: NodeKind,
  version: Schema.Int,
  currentVersionId: Schema.NullOr(FileVersionId),
  sizeBytes: Schema.NullOr(Schema.Int),
  contentType: Schema.NullOr(Schema.String),
  sha256: Schema.NullOr(Schema.String),
  trashedAt: Schema.NullOr(Schema.DateFromSelf),
  trashRootId: Schema.NullOr(NodeId),
  /** Under legal hold (a workspace admin's, audited): the trash retention purge must keep it. */
  legalHold: Schema.Boolean,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  /** At the root, the member who last created, named, moved or restored the node there; null below the root. */
  rootHolder: Schema.NullOr(Schema.String),
});
export type Node = typeof Node.Type;

/** The node as the API shows it (spec shape): without the creator and the trash bookkeeping. */
export const NodeView = Schema.Struct(Struct.omit(Node.fields, "createdBy", "trashRootId", "rootHolder"));
export const NodeWire = wireShape(NodeView);

/**
 * The node as a share link's recipient sees it (spec: an External recipient reaches only the
 * token-scoped shared object): nothing of the workspace around it — no workspace id, no legal
 * hold (an admin's policy). The shared node itself is shown without its parent (ShareLinks.ts).
 */
export const SharedNodeView = Schema.Struct(Struct.omit(Node.fields, "createdBy", "trashRootId", "rootHolder", "workspaceId", "legalHold"));

/** A deleted node in the change feed: enough for a sync client to remove it. */
export const NodeTombstone = Schema.Struct(Struct.pick(Node.fields, "id", "parentId", "kind", "trashedAt"));
export type NodeTombstone = typeof NodeTombstone.Type;

/** A new, active node at version 1 with no content yet (a folder, or a file before its first version). */
export const newNode = (fields: Pick<Node, "id" | "workspaceId" | "parentId" | "name" | "kind" | "createdBy" | "createdAt">): Node => ({
  ...fields,
  rootHolder: null,
  version: 1,
  currentVersionId: null,
  sizeBytes: null,
  contentType: null,
  sha256: null,
  trashedAt: null,
  trashRootId: null,
  legalHold: false,
  updatedAt: fields.createdAt,
});
