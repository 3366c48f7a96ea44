/**
 * Security operator routes (platform-level, FILES_SECURITY_OPERATORS): a non-operator gets 403
 * on the list but 404 on a route naming a version, whether it exists or not. Versions awaiting or
 * failing review across workspaces, release or block with a reason, and audited, reason-bearing
 * sample grants of a version whatever its status (served as application/octet-stream).
 */
import { Effect } from "effect";
import { callerId } from "../../../core/files/Caller.js";
import { listQuarantine, requireVersionOperator, reviewVersion, sampleVersion } from "../../../core/files/SecurityReview.js";
import { PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import type { Principal } from "../../../ports/Principal.js";
import { onVersion, type Acting } from "./Callers.js";
import { DownloadResponse, FileVersionParams, PageQuery, ReviewBody, ReviewResponse, SampleBody, VersionResponse } from "./FilesSchemas.js";

const tags = ["files", "operator"];

/** Runs `f` for a security operator in the version's workspace; anyone else gets the 404 of an unknown version before any lookup. */
const onVersionAsOperator = <A, E, R>(principal: Principal, versionId: string, f: (acting: Acting) => Effect.Effect<A, E, R>) =>
  Effect.zipRight(Effect.flatMap(callerId(principal), requireVersionOperator), onVersion(principal, versionId, f));

/** GET /v1/operator/file-versions — security operators. */
export const listQuarantineRoute = defineRoute({
  method: "GET",
  path: "/v1/operator/file-versions",
  operationId: "listQuarantinedVersions",
  summary: "List quarantined, blocked and scan_failed versions across workspaces (security operator)",
  tags,
  auth: "required",
  pagination: true,
  query: PageQuery,
  responses: { 200: PageOf(VersionResponse) },
  problems: [400, 403],
  handler: ({ principal, page }) =>
    Effect.flatMap(callerId(principal), (operatorId) => listQuarantine({ operatorId, cursor: page.cursor ?? null, limit: page.limit })).pipe(
      Effect.map((versions) => ({ status: 200, body: versions })),
    ),
});

/** POST /v1/operator/file-versions/:id/review — release or block after review (audited). */
export const reviewVersionRoute = defineRoute({
  method: "POST",
  path: "/v1/operator/file-versions/:id/review",
  operationId: "reviewFileVersion",
  summary: "Release (publish) or block a version after review, with a reason (security operator; audited)",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  params: FileVersionParams,
  body: ReviewBody,
  responses: { 200: ReviewResponse },
  problems: [404, 409, 422],
  handler: ({ principal, params, body }) =>
    onVersionAsOperator(principal, params.id, ({ userId, workspaceId }) =>
      reviewVersion({ operatorId: userId, workspaceId, versionId: params.id, decision: body.decision, reason: body.reason }),
    ).pipe(Effect.map((status) => ({ status: 200, body: { version_id: params.id, status } }))),
});

/** POST /v1/operator/file-versions/:id/samples — an audited sample grant with a reason. */
export const sampleVersionRoute = defineRoute({
  method: "POST",
  path: "/v1/operator/file-versions/:id/samples",
  operationId: "sampleFileVersion",
  summary: "Take a short-lived sample grant of a version, with a reason (security operator; audited before it is issued)",
  tags,
  auth: "required",
  // Every sample is its own audited access; a replay would hand out a grant without its audit entry.
  idempotency: "none",
  params: FileVersionParams,
  body: SampleBody,
  responses: { 201: DownloadResponse },
  problems: [404, 422],
  handler: ({ principal, params, body }) =>
    onVersionAsOperator(principal, params.id, ({ userId, workspaceId }) => sampleVersion({ operatorId: userId, workspaceId, versionId: params.id, reason: body.reason })).pipe(
      Effect.map((grant) => ({ status: 201, body: grant, headers: { "Cache-Control": "no-store" } })),
    ),
});

/** Security operator routes. */
export const securityRoutes = [listQuarantineRoute, reviewVersionRoute, sampleVersionRoute];
