/**
 * Routes of the tree: create a folder, read a node (ETag = its version), list children (keyset,
 * filtered by access before the limit), rename or move with If-Match, trash and restore.
 */
import { Effect, Schema } from "effect";
import { VersionMismatch } from "../../../core/kernel/Errors.js";
import { toWire } from "../../../core/kernel/Wire.js";
import { Node, NodeView } from "../../../core/files/model/Node.js";
import { createFolder } from "../../../core/files/CreateFolder.js";
import { moveNode } from "../../../core/files/MoveNode.js";
import { listChildren } from "../../../core/files/NodeQueries.js";
import { getNodeMetadata } from "../../../core/files/NodeMetadata.js";
import { qualifiedEtag } from "../ETag.js";
import { setLegalHold } from "../../../core/files/LegalHold.js";
import { listTrash } from "../../../core/files/ListTrash.js";
import { restoreNode } from "../../../core/files/RestoreNode.js";
import { trashNode } from "../../../core/files/TrashNode.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { inWorkspace, onNode } from "./Callers.js";
import { CreateFolderBody, LegalHoldBody, NodeParams, NodeResponse, PageQuery, PatchNodeBody, WorkspaceParams } from "./FilesSchemas.js";

const tags = ["files"];

const isNode = Schema.is(Node);

/** A stale-version 412 whose `current` is the node view a GET answers (the core carries the record). */
export const currentAsNodeView = <E>(error: E): E | VersionMismatch =>
  error instanceof VersionMismatch && isNode(error.current)
    ? new VersionMismatch({ current: toWire(NodeView, error.current), ...(error.detail !== undefined ? { detail: error.detail } : {}) })
    : error;

/** POST /v1/nodes — an editor of the parent folder (any member at the root). */
export const createFolderRoute = defineRoute({
  method: "POST",
  path: "/v1/nodes",
  operationId: "createFolder",
  summary: "Create a folder",
  description:
    "An editor of the parent folder; at the root any member, who becomes the new folder's owner. 409 name_taken when an active sibling has the name (at the root: one of the caller's own root nodes; root names are unique per member, so a root node the caller cannot see never collides); 422 invalid_name.",
  tags,
  auth: "required",
  answersEtag: "version",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  body: CreateFolderBody,
  responses: { 201: NodeResponse },
  problems: [403, 404, 409, 422],
  handler: ({ principal, body }) =>
    onNode(principal, body.parent_id, ({ userId, workspaceId }) => createFolder({ userId, workspaceId, parentId: body.parent_id, name: body.name })).pipe(
      Effect.map((node) => ({ status: 201, body: node, etag: node.version })),
    ),
});

/** GET /v1/nodes/:id — a viewer; ETag is `"<node version>.<ACL epoch>"` (NodeMetadata.ts). */
export const getNodeRoute = defineRoute({
  method: "GET",
  path: "/v1/nodes/:id",
  operationId: "getNode",
  summary: "Read a node (ETag carries its version and the workspace's ACL epoch)",
  tags,
  auth: "required",
  answersEtag: "qualified",
  params: NodeParams,
  responses: { 200: NodeResponse },
  problems: [404],
  handler: ({ principal, params }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => getNodeMetadata({ userId, workspaceId, nodeId: params.id })).pipe(
      // The metadata ETag carries the ACL epoch too (a revocation invalidates cached answers); If-Match takes the body's `version`.
      Effect.map((metadata) => ({ status: 200, body: metadata.node, headers: { ETag: qualifiedEtag(metadata.node.version, metadata.aclEpoch) } })),
    ),
});

/** GET /v1/nodes/:id/children — node viewer (spec: 200, 403). */
export const listChildrenRoute = defineRoute({
  method: "GET",
  path: "/v1/nodes/:id/children",
  operationId: "listChildren",
  summary: "List the authorized active children of a folder (keyset pages by name, then id)",
  description:
    "A viewer of the folder sees every active child. At the root, a member without a role on it sees only the children granted to them, filtered before the page limit.",
  tags,
  auth: "required",
  pagination: true,
  params: NodeParams,
  query: PageQuery,
  responses: { 200: PageOf(NodeResponse) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) =>
      listChildren({ userId, workspaceId, nodeId: params.id, cursor: page.cursor ?? null, limit: page.limit }),
    ).pipe(Effect.map((children) => ({ status: 200, body: children }))),
});

/** PATCH /v1/nodes/:id — rename and/or move with the expected version. */
export const patchNodeRoute = defineRoute({
  method: "PATCH",
  path: "/v1/nodes/:id",
  operationId: "moveNode",
  summary: "Rename or move a node with the expected version in If-Match",
  description:
    "An editor of the node and, for a move, of the destination folder. 428 without If-Match; 412 version_mismatch with `current`; " +
    "409 name_taken (at the root: by one of the caller's own root nodes), move_into_descendant (a node never becomes its own descendant), concurrent_move, root_immutable, node_trashed.",
  tags,
  auth: "required",
  answersEtag: "version",
  ifMatch: "required",
  params: NodeParams,
  body: PatchNodeBody,
  responses: { 200: NodeResponse },
  problems: [403, 404, 409, 412, 422, 428],
  handler: ({ principal, params, body, ifMatch }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) =>
      moveNode({ userId, workspaceId, nodeId: params.id, expectedVersion: ifMatch, name: body.name ?? null, parentId: body.parent_id ?? null }),
    ).pipe(
      Effect.map((node) => ({ status: 200, body: node, etag: node.version })),
      Effect.mapError(currentAsNodeView),
    ),
});

/** DELETE /v1/nodes/:id — trash the node and its active subtree (an editor); If-Match optional. */
export const trashNodeRoute = defineRoute({
  method: "DELETE",
  path: "/v1/nodes/:id",
  operationId: "trashNode",
  summary: "Move a node and its subtree to the trash",
  description:
    "An editor. The change feed gets one node.trashed tombstone for the node (clients drop its subtree); NodeDeleted is produced. 409 root_immutable for the root. " +
    "With If-Match (the node's version, or the ETag GET gave), only if the node is still at that version: 412 version_mismatch with `current` otherwise.",
  tags,
  auth: "required",
  ifMatch: "optional",
  params: NodeParams,
  responses: { 204: null },
  problems: [403, 404, 409, 412],
  handler: ({ principal, params, ifMatch }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => trashNode({ userId, workspaceId, nodeId: params.id, expectedVersion: ifMatch })).pipe(
      Effect.as({ status: 204 }),
      Effect.mapError(currentAsNodeView),
    ),
});

/** POST /v1/nodes/:id/restore — bring back exactly what was trashed with the node; If-Match optional. */
export const restoreNodeRoute = defineRoute({
  method: "POST",
  path: "/v1/nodes/:id/restore",
  operationId: "restoreNode",
  summary: "Restore a trashed node and the subtree trashed with it",
  description:
    "An editor. 409 name_taken when the name was taken again meanwhile; 409 node_trashed for a node trashed with an ancestor (restore the ancestor). " +
    "With If-Match (the node's version, or the ETag GET gave), only if the node is still at that version: 412 version_mismatch with `current` otherwise.",
  tags,
  auth: "required",
  answersEtag: "version",
  ifMatch: "optional",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: NodeParams,
  responses: { 200: NodeResponse },
  problems: [403, 404, 409, 412],
  handler: ({ principal, params, ifMatch }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => restoreNode({ userId, workspaceId, nodeId: params.id, expectedVersion: ifMatch })).pipe(
      Effect.map((node) => ({ status: 200, body: node, etag: node.version })),
      Effect.mapError(currentAsNodeView),
    ),
});

/** GET /v1/workspaces/:id/trash — a member; what they may see. */
export const listTrashRoute = defineRoute({
  method: "GET",
  path: "/v1/workspaces/:id/trash",
  operationId: "listTrash",
  summary: "List the workspace's trash: nodes trashed as roots, newest first (keyset pages)",
  description: "Only nodes the caller can see (a grant on the node or an ancestor), filtered before the page limit. A trashed folder stands for its subtree; restore it with POST /v1/nodes/:id/restore.",
  tags,
  auth: "required",
  pagination: true,
  params: WorkspaceParams,
  query: PageQuery,
  responses: { 200: PageOf(NodeResponse) },
  problems: [400, 404],
  handler: ({ principal, params, page }) =>
    inWorkspace(principal, params.id, ({ userId, workspaceId }) => listTrash({ userId, workspaceId, cursor: page.cursor ?? null, limit: page.limit })).pipe(
      Effect.map((trash) => ({ status: 200, body: trash })),
    ),
});

/** PUT /v1/nodes/:id/legal-hold — a workspace admin; audited; If-Match optional. */
export const legalHoldRoute = defineRoute({
  method: "PUT",
  path: "/v1/nodes/:id/legal-hold",
  operationId: "setLegalHold",
  summary: "Place or release a legal hold on a node (workspace admin; audited with the reason)",
  description:
    "A held node is kept by the trash retention purge. Admins govern policy, not content: no role on the node is needed. 403 for other members who can see the node. " +
    "With If-Match (the node's version, or the ETag GET gave), only if the node is still at that version: 412 version_mismatch with `current` otherwise.",
  tags,
  auth: "required",
  answersEtag: "version",
  ifMatch: "optional",
  params: NodeParams,
  body: LegalHoldBody,
  responses: { 200: NodeResponse },
  problems: [403, 404, 412, 422],
  handler: ({ principal, params, body, ifMatch }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) =>
      setLegalHold({ userId, workspaceId, nodeId: params.id, hold: body.hold, reason: body.reason, expectedVersion: ifMatch }),
    ).pipe(
      Effect.map((node) => ({ status: 200, body: node, etag: node.version })),
      Effect.mapError(currentAsNodeView),
    ),
});

/** Node routes. */
export const nodeRoutes = [createFolderRoute, getNodeRoute, listChildrenRoute, patchNodeRoute, trashNodeRoute, restoreNodeRoute, listTrashRoute, legalHoldRoute];
