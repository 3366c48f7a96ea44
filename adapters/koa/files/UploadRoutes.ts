/**
 * Routes of resumable uploads. Bytes never pass through these routes: a session answers one
 * grant per part (bound to object key, PUT, size, SHA-256 and expiry) and the client PUTs each
 * part to the object store directly, then reports the part's ETag (PUT .../parts/:part_number);
 * completion verifies what the store holds.
 */
import { Effect } from "effect";
import { abortUpload } from "../../../core/files/AbortUpload.js";
import { completeUpload } from "../../../core/files/CompleteUpload.js";
import { createUpload } from "../../../core/files/CreateUpload.js";
import { reportUploadPart } from "../../../core/files/ReportUploadPart.js";
import { getUpload } from "../../../core/files/UploadQueries.js";
import { PartGrant, UploadSessionView } from "../../../core/files/model/UploadSession.js";
import { toWire } from "../../../core/kernel/Wire.js";
import { defineRoute } from "../Route.js";
import { onNode, onUpload } from "./Callers.js";
import { CompleteUploadBody, CreateUploadBody, ReportUploadPartBody, UploadParams, UploadPartParams, UploadResponse, VersionResponse } from "./FilesSchemas.js";

const tags = ["files"];

/** POST /v1/uploads — parent folder editor; Idempotency-Key required (spec). */
export const createUploadRoute = defineRoute({
  method: "POST",
  path: "/v1/uploads",
  operationId: "createUpload",
  summary: "Reserve quota and open an upload session with a grant per part",
  description:
    "An editor of the parent folder (any member at the root), or of the file for a new version (`node_id`). The size is reserved against the drive's quota " +
    "in the same transaction: 413 quota_exceeded or file_too_large. PUT each part's bytes to `parts[].url` with `parts[].headers`. " +
    "After each PUT, report the part's `ETag` response header (PUT /v1/uploads/:id/parts/:part_number). " +
    "A file of more than one part declares each part's SHA-256 in `part_sha256`. 409 name_taken when the name is taken " +
    "(at the root: by one of the caller's own root nodes; another member's root node never takes it).",
  tags,
  auth: "required",
  idempotency: "required",
  // Part grants are bearer capabilities: the idempotency record keeps the answer without them, and
  // a replay answers the session as it stands, with fresh grants for the parts still missing, as a
  // resume does (none once settled).
  unstored: {
    fields: ["parts", "status", "received_parts"],
    reissue: ({ principal }, stored) =>
      onUpload(principal, String(stored["id"]), ({ userId, workspaceId }) => getUpload({ userId, workspaceId, uploadId: String(stored["id"]) })).pipe(
        Effect.map((session) => {
          const wire = toWire(UploadSessionView, session);
          // A nested record is its own wire shape (FilesSchemas' UploadResponse).
          return { parts: session.parts.map((part) => toWire(PartGrant, part)), status: wire.status, received_parts: wire.received_parts };
        }),
      ),
  },
  body: CreateUploadBody,
  responses: { 201: UploadResponse },
  problems: [403, 404, 409, 413, 422],
  handler: ({ principal, body }) =>
    onNode(principal, body.node_id ?? body.parent_id, ({ userId, workspaceId }) =>
      createUpload({
        userId,
        workspaceId,
        parentId: body.parent_id,
        name: body.name,
        sizeBytes: body.size_bytes,
        sha256: body.sha256,
        contentType: body.content_type,
        nodeId: body.node_id ?? null,
        partSha256: body.part_sha256 ?? null,
      }),
    ).pipe(Effect.map((session) => ({ status: 201, body: session }))),
});

/** GET /v1/uploads/:id — the session's owner resumes: received parts and fresh grants for the missing ones. */
export const getUploadRoute = defineRoute({
  method: "GET",
  path: "/v1/uploads/:id",
  operationId: "getUpload",
  summary: "Resume an upload: the parts already stored and fresh grants for the missing ones",
  description:
    "The session's owner, while still allowed to create in the folder (or edit the file, for a new version): else 404, or 403 while they still see it. " +
    "A settled session is answered without grants.",
  tags,
  auth: "required",
  params: UploadParams,
  responses: { 200: UploadResponse },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    onUpload(principal, params.id, ({ userId, workspaceId }) => getUpload({ userId, workspaceId, uploadId: params.id })).pipe(
      Effect.map((session) => ({ status: 200, body: session })),
    ),
});

/** PUT /v1/uploads/:id/parts/:part_number — the session's owner reports a part the store received. */
export const reportUploadPartRoute = defineRoute({
  method: "PUT",
  path: "/v1/uploads/:id/parts/:part_number",
  operationId: "reportUploadPart",
  summary: "Report a part the store received, with the ETag its PUT answered",
  description:
    "Idempotent: reporting again replaces the ETag (the part was sent again). With an S3-compatible store this is how the server learns " +
    "which parts arrived (`received_parts`) and what completion hands the store; with the embedded store it is accepted and the store is asked. " +
    "Answers the session as GET /v1/uploads/:id does (404 or 403 once the owner may no longer upload there). 422 for a part number the upload does not have; 409 upload_not_open once settled.",
  tags,
  auth: "required",
  params: UploadPartParams,
  body: ReportUploadPartBody,
  responses: { 200: UploadResponse },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    onUpload(principal, params.id, ({ userId, workspaceId }) =>
      reportUploadPart({ userId, workspaceId, uploadId: params.id, partNumber: params.part_number, etag: body.etag }),
    ).pipe(Effect.map((session) => ({ status: 200, body: session }))),
});

/** POST /v1/uploads/:id/complete — the session's owner; keyed by session and checksum (spec). */
export const completeUploadRoute = defineRoute({
  method: "POST",
  path: "/v1/uploads/:id/complete",
  operationId: "completeUpload",
  summary: "Verify the stored object and queue its scan (202 with the quarantined version)",
  description:
    "Keyed by session and checksum: repeating it with the same `sha256` answers the same version. `parts` reports parts not reported yet. " +
    "422 checksum_mismatch or size_mismatch when the " +
    "stored bytes differ (nothing published, the reservation released); 409 upload_incomplete (parts missing; the session stays open), " +
    "upload_completed (another checksum), upload_not_open (aborted, expired or failed) or name_taken (at the root: by one of the caller's own root nodes). " +
    "The session's owner must still be allowed to create in the folder (or edit the file, for a new version): else 404, or 403 while they still see it; the session stays open.",
  tags,
  auth: "required",
  params: UploadParams,
  body: CompleteUploadBody,
  responses: { 202: VersionResponse },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    onUpload(principal, params.id, ({ userId, workspaceId }) => completeUpload({
        userId,
        workspaceId,
        uploadId: params.id,
        sha256: body.sha256,
        parts: (body.parts ?? []).map((p) => ({ partNumber: p.part_number, etag: p.etag })),
      })).pipe(
      Effect.map((version) => ({ status: 202, body: version })),
    ),
});

/** DELETE /v1/uploads/:id — the session's owner aborts; the reservation is released once. */
export const abortUploadRoute = defineRoute({
  method: "DELETE",
  path: "/v1/uploads/:id",
  operationId: "abortUpload",
  summary: "Abort an upload and release its reservation (idempotent)",
  description: "409 upload_not_open when the session already completed, expired or failed.",
  tags,
  auth: "required",
  params: UploadParams,
  responses: { 204: null },
  problems: [404, 409],
  handler: ({ principal, params }) =>
    onUpload(principal, params.id, ({ userId, workspaceId }) => abortUpload({ userId, workspaceId, uploadId: params.id })).pipe(Effect.as({ status: 204 })),
});

/** Upload routes. */
export const uploadRoutes = [createUploadRoute, getUploadRoute, reportUploadPartRoute, completeUploadRoute, abortUploadRoute];
