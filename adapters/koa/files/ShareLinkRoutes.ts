/**
 * Routes of file share links. An owner creates (the token is answered once, stored as a hash),
 * lists (never the tokens) and revokes links. A recipient presents the token only in the
 * `X-Share-Token` header — never in a URL, so it stays out of access logs — and reaches exactly
 * the shared node and, for a folder, its active subtree; anything else, or a revoked, expired or
 * unknown token, is 404.
 */
import { Effect } from "effect";
import { listSharedChildren } from "../../../core/files/SharedChildren.js";
import { createShareLink, listShareLinks, resolveShare, revokeShareLink, shareDownload } from "../../../core/files/ShareLinks.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { onNode } from "./Callers.js";
import { CreatedShareLinkResponse, CreateShareLinkBody, NodeParams, PageQuery, SharedDownloadResponse, SharedNodeResponse, SharedChildrenQuery, SharedDownloadBody, SharedNodeQuery, ShareLinkParams, ShareLinkResponse } from "./FilesSchemas.js";

const tags = ["files"];

/** The header carrying a file share token (as project share links do). */
export const fileShareTokenHeader = "X-Share-Token";

/** How the access routes declare the token header (a missing or unusable token answers 404). */
const shareTokenRequestHeader = [{ name: fileShareTokenHeader, required: true, description: "The share link's token (never in the URL). Missing, unknown, expired or revoked: 404." }];

// Answers carrying or granted by a token must not be cached by anyone.
const noStore = { "Cache-Control": "no-store" };

/** POST /v1/nodes/:id/share-links — the node's owner. */
export const createFileShareLinkRoute = defineRoute({
  method: "POST",
  path: "/v1/nodes/:id/share-links",
  operationId: "createFileShareLink",
  summary: "Create a share link to a node (owner; the token is shown once)",
  description: "`expires_at` must be in the future and at most 365 days ahead (30 days from now when omitted: every link expires; 422 otherwise); `allow_download` lets recipients take download grants. Present the token in X-Share-Token.",
  tags,
  auth: "required",
  // Not replayable: a stored replay would keep the token in clear in the idempotency record.
  idempotency: "none",
  params: NodeParams,
  body: CreateShareLinkBody,
  responses: { 201: CreatedShareLinkResponse },
  problems: [403, 404, 422],
  handler: ({ principal, params, body }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) =>
      createShareLink({ userId, workspaceId, nodeId: params.id, expiresAt: body.expires_at ?? null, allowDownload: body.allow_download }),
    ).pipe(
      Effect.map(({ link, token }) => ({
        status: 201,
        body: { id: link.id, nodeId: link.nodeId, allowDownload: link.allowDownload, expiresAt: link.expiresAt, token },
        headers: noStore,
      })),
    ),
});

/** GET /v1/nodes/:id/share-links — the node's owner; never the tokens. */
export const listFileShareLinksRoute = defineRoute({
  method: "GET",
  path: "/v1/nodes/:id/share-links",
  operationId: "listFileShareLinks",
  summary: "List a node's share links, newest first (owner; never the tokens; keyset pages)",
  tags,
  auth: "required",
  pagination: true,
  params: NodeParams,
  query: PageQuery,
  responses: { 200: PageOf(ShareLinkResponse) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) =>
      listShareLinks({ userId, workspaceId, nodeId: params.id, cursor: page.cursor ?? null, limit: page.limit }),
    ).pipe(Effect.map((links) => ({ status: 200, body: links }))),
});

/** DELETE /v1/nodes/:id/share-links/:link_id — the node's owner (idempotent). */
export const revokeFileShareLinkRoute = defineRoute({
  method: "DELETE",
  path: "/v1/nodes/:id/share-links/:link_id",
  operationId: "revokeFileShareLink",
  summary: "Revoke a share link (owner; idempotent)",
  tags,
  auth: "required",
  params: ShareLinkParams,
  responses: { 204: null },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => revokeShareLink({ userId, workspaceId, nodeId: params.id, linkId: params.link_id })).pipe(
      Effect.as({ status: 204 }),
    ),
});

/** GET /v1/file-shares/access — public; the token in X-Share-Token. */
export const accessFileShareRoute = defineRoute({
  method: "GET",
  path: "/v1/file-shares/access",
  operationId: "accessFileShare",
  summary: "Read the shared node, or a node inside a shared folder (X-Share-Token header)",
  description: "A missing, unknown, expired or revoked token, or a node outside the shared subtree, answers 404.",
  tags,
  auth: "none",
  requestHeaders: shareTokenRequestHeader,
  query: SharedNodeQuery,
  responses: { 200: SharedNodeResponse },
  problems: [404],
  handler: ({ query }, ctx) =>
    resolveShare(ctx.get(fileShareTokenHeader) || undefined, query.node_id ?? null).pipe(
      // The shared node is the recipient's top: its parent lies outside the share.
      Effect.map(({ link, node }) => ({ status: 200, body: node.id === link.nodeId ? { ...node, parentId: null } : node, headers: noStore })),
    ),
});

/** GET /v1/file-shares/access/children — public; the token in X-Share-Token. */
export const sharedChildrenRoute = defineRoute({
  method: "GET",
  path: "/v1/file-shares/access/children",
  operationId: "listFileShareChildren",
  summary: "List the children of the shared folder, or of a folder inside it (X-Share-Token header)",
  description: "`parent_id` names a folder in the shared subtree (the shared folder when omitted). 404 as for access; 409 not_a_folder for a file.",
  tags,
  auth: "none",
  requestHeaders: shareTokenRequestHeader,
  pagination: true,
  query: SharedChildrenQuery,
  responses: { 200: PageOf(SharedNodeResponse) },
  problems: [400, 404, 409],
  handler: ({ query, page }, ctx) =>
    listSharedChildren({ token: ctx.get(fileShareTokenHeader) || undefined, parentId: query.parent_id ?? null, cursor: page.cursor ?? null, limit: page.limit }).pipe(
      Effect.map((children) => ({ status: 200, body: children, headers: noStore })),
    ),
});

/** POST /v1/file-shares/access/downloads — public; the token in X-Share-Token. */
export const fileShareDownloadRoute = defineRoute({
  method: "POST",
  path: "/v1/file-shares/access/downloads",
  operationId: "fileShareDownload",
  summary: "Issue a download grant through a share link (X-Share-Token header)",
  description: "403 when the link does not allow downloads; 423 version_quarantined when the file has no published version; 404 as for access.",
  tags,
  auth: "none",
  requestHeaders: shareTokenRequestHeader,
  body: SharedDownloadBody,
  responses: { 201: SharedDownloadResponse },
  problems: [403, 404, 409, 423],
  handler: ({ body }, ctx) =>
    shareDownload(ctx.get(fileShareTokenHeader) || undefined, body.node_id ?? null).pipe(
      Effect.map((grant) => ({ status: 201, body: grant, headers: noStore })),
    ),
});

/** File share link routes. */
export const fileShareLinkRoutes = [
  createFileShareLinkRoute,
  listFileShareLinksRoute,
  revokeFileShareLinkRoute,
  accessFileShareRoute,
  sharedChildrenRoute,
  fileShareDownloadRoute,
];
