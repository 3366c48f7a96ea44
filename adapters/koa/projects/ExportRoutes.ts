/** Routes of workspace exports: request (a job), poll, download grant. */
import { Effect } from "effect";
import { TransferGrantView } from "../../../core/projects/model/TransferGrant.js";
import { downloadExport, getExport, requestExport } from "../../../core/projects/Exports.js";
import { ExportView } from "../../../core/projects/model/WorkspaceExport.js";
import { defineRoute } from "../Route.js";
import { ExportParams, WorkspaceParams } from "./ProjectSchemas.js";

const tags = ["projects"];

/** POST /v1/workspaces/:id/exports — any workspace member; 202 with the pending export. */
export const requestExportRoute = defineRoute({
  method: "POST",
  path: "/v1/workspaces/:id/exports",
  operationId: "requestWorkspaceExport",
  summary: "Export what you may see of a workspace (runs as a job)",
  description: "The result is JSON lines (`type` on every line) of the workspace, visible projects, members, tasks, comments, attachments and activity.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  // Each export is a job writing a full copy of what the member sees: 10 an hour by default.
  budget: { name: "exports" },
  params: WorkspaceParams,
  responses: { 202: ExportView },
  problems: [403, 404, 429],
  handler: ({ principal, params }) =>
    requestExport(principal, params.id).pipe(
      Effect.map((e) => ({ status: 202, body: e, headers: { Location: `/v1/exports/${e.id}` } })),
    ),
});

/** GET /v1/exports/:id — the requester only. */
export const getExportRoute = defineRoute({
  method: "GET",
  path: "/v1/exports/:id",
  operationId: "getWorkspaceExport",
  summary: "Poll an export",
  tags,
  auth: "required",
  params: ExportParams,
  responses: { 200: ExportView },
  problems: [403, 404],
  handler: ({ principal, params }) => getExport(principal, params.id).pipe(Effect.map((e) => ({ status: 200, body: e }))),
});

/** GET /v1/exports/:id/download — a short-lived download grant once done. */
export const downloadExportRoute = defineRoute({
  method: "GET",
  path: "/v1/exports/:id/download",
  operationId: "downloadWorkspaceExport",
  summary: "Get a short-lived download grant for a finished export",
  description: "409 export_not_ready while the job runs; 409 export_failed when it failed; 410 export_expired once its retention ended and its object was deleted.",
  tags,
  auth: "required",
  params: ExportParams,
  responses: { 200: TransferGrantView },
  problems: [403, 404, 409, 410],
  handler: ({ principal, params }) => downloadExport(principal, params.id).pipe(Effect.map((grant) => ({ status: 200, body: grant }))),
});

/** Export routes. */
export const exportRoutes = [requestExportRoute, getExportRoute, downloadExportRoute];
