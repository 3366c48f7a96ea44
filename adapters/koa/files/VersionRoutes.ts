/**
 * Routes of a file's versions and downloads: the version history (keyset, newest first),
 * restoring an old version as a new current one, and short-lived download grants issued after a
 * current access check (a version that is not published is 423 version_quarantined).
 */
import { Effect } from "effect";
import { requestDownload } from "../../../core/files/RequestDownload.js";
import { restoreVersion } from "../../../core/files/RestoreVersion.js";
import { listVersions } from "../../../core/files/VersionQueries.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { onNode } from "./Callers.js";
import { DownloadBody, DownloadResponse, NodeParams, PageQuery, VersionParams, VersionResponse } from "./FilesSchemas.js";

const tags = ["files"];

// A grant must not be cached by anyone.
const noStore = { "Cache-Control": "no-store" };

/** GET /v1/nodes/:id/versions — a viewer of the file. */
export const listVersionsRoute = defineRoute({
  method: "GET",
  path: "/v1/nodes/:id/versions",
  operationId: "listVersions",
  summary: "List a file's versions, newest first (keyset pages)",
  description: "Statuses: quarantined, published, blocked, scan_failed; `is_current` marks the one current published version. 409 not_a_file for a folder.",
  tags,
  auth: "required",
  pagination: true,
  params: NodeParams,
  query: PageQuery,
  responses: { 200: PageOf(VersionResponse) },
  problems: [400, 404, 409],
  handler: ({ principal, params, page }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => listVersions({ userId, workspaceId, nodeId: params.id, cursor: page.cursor ?? null, limit: page.limit })).pipe(
      Effect.map((versions) => ({ status: 200, body: versions })),
    ),
});

/** POST /v1/nodes/:id/versions/:version_id/restore — an editor makes an old published version current again. */
export const restoreVersionRoute = defineRoute({
  method: "POST",
  path: "/v1/nodes/:id/versions/:version_id/restore",
  operationId: "restoreVersion",
  summary: "Make an old published version current again, as a new version",
  description: "An editor of the file. The new version has the next number, the same bytes and `restored_from_id`; it is published and current at once. 423 for a version that is not published.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: VersionParams,
  responses: { 201: VersionResponse },
  problems: [403, 404, 409, 423],
  handler: ({ principal, params }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => restoreVersion({ userId, workspaceId, nodeId: params.id, versionId: params.version_id })).pipe(
      Effect.map((version) => ({ status: 201, body: version })),
    ),
});

/** POST /v1/nodes/:id/downloads — current ACL (viewer); spec: 201, 403, 423. */
export const requestDownloadRoute = defineRoute({
  method: "POST",
  path: "/v1/nodes/:id/downloads",
  operationId: "requestDownload",
  summary: "Issue a short-lived download grant for the current (or a named) version",
  description:
    "A viewer of the file, checked now. GET the `url` (Range supported) before `expires_at`. 423 version_quarantined for a version that is quarantined, blocked or scan_failed " +
    "(or a file with no published version yet). No Idempotency-Key: every grant is issued after a fresh access check, never replayed.",
  tags,
  auth: "required",
  // The spec: "Not required"; a stored replay would hand out a grant without the current authorization check.
  idempotency: "none",
  params: NodeParams,
  body: DownloadBody,
  responses: { 201: DownloadResponse },
  problems: [403, 404, 409, 423],
  handler: ({ principal, params, body }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => requestDownload({ userId, workspaceId, nodeId: params.id, versionId: body.version_id ?? null })).pipe(
      Effect.map((grant) => ({ status: 201, body: grant, headers: noStore })),
    ),
});

/** Version and download routes. */
export const versionRoutes = [listVersionsRoute, restoreVersionRoute, requestDownloadRoute];
