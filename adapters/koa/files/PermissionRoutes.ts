/**
 * Routes of a node's ACL: its owners list, grant and revoke direct roles. A revocation bumps the
 * drive's ACL epoch and is visible in the next request (every check reads grants afresh).
 */
import { Effect } from "effect";
import { PageOf } from "../../../core/kernel/Page.js";
import { grantAccess, listPermissions, revokeAccess } from "../../../core/files/Permissions.js";
import { defineRoute } from "../Route.js";
import { onNode } from "./Callers.js";
import { GrantBody, NodeParams, PageQuery, PermissionParams, PermissionResponse } from "./FilesSchemas.js";

const tags = ["files"];

/** GET /v1/nodes/:id/permissions — the node's owners. */
export const listPermissionsRoute = defineRoute({
  method: "GET",
  path: "/v1/nodes/:id/permissions",
  operationId: "listNodePermissions",
  summary: "List the direct grants on a node by user id (owner; keyset pages)",
  tags,
  auth: "required",
  pagination: true,
  params: NodeParams,
  query: PageQuery,
  responses: { 200: PageOf(PermissionResponse) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) =>
      listPermissions({ userId, workspaceId, nodeId: params.id, cursor: page.cursor ?? null, limit: page.limit }),
    ).pipe(Effect.map((entries) => ({ status: 200, body: entries }))),
});

/** POST /v1/nodes/:id/permissions — an owner grants (or changes) a member's role. */
export const grantPermissionRoute = defineRoute({
  method: "POST",
  path: "/v1/nodes/:id/permissions",
  operationId: "grantNodePermission",
  summary: "Grant a workspace member a role on a node (owner); inherited down the tree",
  description: "Roles: viewer (list, read, download) < editor (+ upload, create, rename, move, trash, restore) < owner (+ ACL and share links). 422 when the user is not a member.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: NodeParams,
  body: GrantBody,
  responses: { 200: PermissionResponse },
  problems: [403, 404, 422],
  handler: ({ principal, params, body }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => grantAccess({ userId, workspaceId, nodeId: params.id, granteeId: body.user_id, role: body.role })).pipe(
      Effect.map((entry) => ({ status: 200, body: entry })),
    ),
});

/** DELETE /v1/nodes/:id/permissions/:user_id — an owner revokes (idempotent). */
export const revokePermissionRoute = defineRoute({
  method: "DELETE",
  path: "/v1/nodes/:id/permissions/:user_id",
  operationId: "revokeNodePermission",
  summary: "Revoke a member's direct grant on a node (owner; idempotent); bumps the ACL epoch",
  tags,
  auth: "required",
  params: PermissionParams,
  responses: { 204: null },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => revokeAccess({ userId, workspaceId, nodeId: params.id, granteeId: params.user_id })).pipe(
      Effect.as({ status: 204 }),
    ),
});

/** Permission routes. */
export const permissionRoutes = [listPermissionsRoute, grantPermissionRoute, revokePermissionRoute];
