/**
 * Routes of task attachments. Bytes never pass through them: the upload and download answers
 * carry a short-lived grant for the object store's own handler.
 */
import { Effect, Schema } from "effect";
import {
  completeAttachment,
  downloadAttachment,
  getAttachment,
  listAttachments,
  reissueAttachmentUpload,
  requestAttachmentUpload,
} from "../../../core/projects/Attachments.js";
import { AttachmentId } from "../../../core/projects/model/Ids.js";
import { toWire } from "../../../core/kernel/Wire.js";
import { AttachmentView, attachmentPublic } from "../../../core/projects/model/Attachment.js";
import { TransferGrant, TransferGrantView } from "../../../core/projects/model/TransferGrant.js";
import { downloadThumbnail } from "../../../core/projects/AttachmentThumbnails.js";
import { mapPage, PageOf } from "../../../core/kernel/Page.js";
import { defineRoute } from "../Route.js";
import { AttachmentParams, PageQuery, TaskParams } from "./ProjectSchemas.js";

const tags = ["projects"];

/** Body of POST /v1/tasks/:id/attachments: what the client is about to upload. */
export const AttachmentUploadBody = Schema.Struct({
  filename: Schema.String,
  content_type: Schema.String,
  size: Schema.Number,
  sha256: Schema.String,
});

/** Answer of POST /v1/tasks/:id/attachments. */
export const AttachmentUploadView = Schema.Struct({ attachment: AttachmentView, upload: TransferGrantView });

/** POST /v1/tasks/:id/attachments — commenter or above; answers the pending attachment and its upload grant. */
export const requestAttachmentUploadRoute = defineRoute({
  method: "POST",
  path: "/v1/tasks/:id/attachments",
  operationId: "requestAttachmentUpload",
  summary: "Register an attachment and get its upload grant",
  description:
    "Send the bytes with `upload.method` to `upload.url` with `upload.headers`, exactly `size` bytes hashing to `sha256` (hex), before `upload.expires_at`; then complete the attachment.",
  tags,
  auth: "required",
  idempotency: "required",
  // The grant is a bearer capability: the idempotency record keeps the answer without it, and a
  // replay gets a fresh one for what is left of the upload's lifetime, after access is re-checked.
  unstored: {
    fields: ["upload"],
    reissue: ({ principal }, stored) =>
      reissueAttachmentUpload(principal, AttachmentId.make(String((stored["attachment"] as { id?: unknown } | undefined)?.id))).pipe(
        Effect.map((upload) => ({ upload: toWire(TransferGrant, upload) })),
      ),
  },
  params: TaskParams,
  body: AttachmentUploadBody,
  responses: { 201: AttachmentUploadView },
  problems: [403, 404, 409, 413, 422],
  handler: ({ principal, params, body }) =>
    requestAttachmentUpload(principal, params.id, {
      filename: body.filename,
      contentType: body.content_type,
      size: body.size,
      sha256: body.sha256,
    }).pipe(Effect.map(({ attachment, upload }) => ({ status: 201, body: { attachment: attachmentPublic(attachment), upload } }))),
});

/** POST /v1/attachments/:id/complete — the uploader; verifies the stored object and queues the scan (202). */
export const completeAttachmentRoute = defineRoute({
  method: "POST",
  path: "/v1/attachments/:id/complete",
  operationId: "completeAttachment",
  summary: "Complete an upload: verify size and checksum, quarantine, queue the scan",
  description: "Idempotent: completing again answers the attachment as it is. 409 upload_incomplete before the bytes were uploaded.",
  tags,
  auth: "required",
  params: AttachmentParams,
  responses: { 202: AttachmentView },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params }) =>
    completeAttachment(principal, params.id).pipe(Effect.map((attachment) => ({ status: 202, body: attachmentPublic(attachment) }))),
});

/** GET /v1/tasks/:id/attachments — oldest first. */
export const listAttachmentsRoute = defineRoute({
  method: "GET",
  path: "/v1/tasks/:id/attachments",
  operationId: "listAttachments",
  summary: "List a task's attachments",
  tags,
  auth: "required",
  pagination: true,
  params: TaskParams,
  query: PageQuery,
  responses: { 200: PageOf(AttachmentView) },
  problems: [400, 403, 404],
  handler: ({ principal, params, page }) =>
    listAttachments(principal, params.id, { cursor: page.cursor, limit: page.limit }).pipe(
      Effect.map((listed) => ({ status: 200, body: mapPage(listed, attachmentPublic) })),
    ),
});

/** GET /v1/attachments/:id — one attachment with its scan status. */
export const getAttachmentRoute = defineRoute({
  method: "GET",
  path: "/v1/attachments/:id",
  operationId: "getAttachment",
  summary: "Read an attachment and its scan status",
  tags,
  auth: "required",
  params: AttachmentParams,
  responses: { 200: AttachmentView },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    getAttachment(principal, params.id).pipe(Effect.map((attachment) => ({ status: 200, body: attachmentPublic(attachment) }))),
});

/** GET /v1/attachments/:id/download — a short-lived download grant, only for a clean attachment. */
export const downloadAttachmentRoute = defineRoute({
  method: "GET",
  path: "/v1/attachments/:id/download",
  operationId: "downloadAttachment",
  summary: "Get a short-lived download grant for a clean attachment",
  description: "409 attachment_quarantined until the scan is clean; 409 attachment_infected, attachment_scan_failed, attachment_not_uploaded.",
  tags,
  auth: "required",
  params: AttachmentParams,
  responses: { 200: TransferGrantView },
  problems: [403, 404, 409],
  handler: ({ principal, params }) => downloadAttachment(principal, params.id).pipe(Effect.map((grant) => ({ status: 200, body: grant }))),
});

/** GET /v1/attachments/:id/thumbnail — a short-lived download grant for a clean attachment's ready thumbnail. */
export const downloadThumbnailRoute = defineRoute({
  method: "GET",
  path: "/v1/attachments/:id/thumbnail",
  operationId: "downloadAttachmentThumbnail",
  summary: "Get a short-lived download grant for an attachment's thumbnail",
  description:
    "Same access rules as the download. 409 with the download's code when the attachment is not clean; 409 thumbnail_not_ready, thumbnail_unsupported or thumbnail_failed per `thumbnail.status`.",
  tags,
  auth: "required",
  params: AttachmentParams,
  responses: { 200: TransferGrantView },
  problems: [403, 404, 409],
  handler: ({ principal, params }) => downloadThumbnail(principal, params.id).pipe(Effect.map((grant) => ({ status: 200, body: grant }))),
});

/** Attachment routes. */
export const attachmentRoutes = [
  requestAttachmentUploadRoute,
  completeAttachmentRoute,
  listAttachmentsRoute,
  getAttachmentRoute,
  downloadAttachmentRoute,
  downloadThumbnailRoute,
];
