/** Routes of the audit export: a workspace admin asks (202), polls, and downloads through a grant. */
import { Effect } from "effect";
import { getAuditExport, requestAuditExport } from "../../../core/files/AuditExports.js";
import { defineRoute } from "../Route.js";
import { inWorkspace } from "./Callers.js";
import { AuditExportParams, AuditExportResponse, WorkspaceParams } from "./FilesSchemas.js";

const tags = ["files"];
const noStore = { "Cache-Control": "no-store" };

/** POST /v1/workspaces/:id/audit-exports — a workspace admin; Idempotency-Key required (a job per request). */
export const requestAuditExportRoute = defineRoute({
  method: "POST",
  path: "/v1/workspaces/:id/audit-exports",
  operationId: "requestFileAuditExport",
  summary: "Export the workspace's file storage audit trail as JSON lines (202; a job writes it)",
  description:
    "A workspace admin. Poll `GET /v1/workspaces/:id/audit-exports/:export_id`; once `status` is `done` its `download` is a short-lived grant to the " +
    "JSON lines (one `audit_export` header line, then one `audit` line per entry, oldest first), for 7 days after it completed " +
    "(`FilesSettings.auditExportRetentionMs`); then `download` stays null and the object is removed. 403 for a member who is not an admin.",
  tags,
  auth: "required",
  idempotency: "required",
  params: WorkspaceParams,
  responses: { 202: AuditExportResponse },
  problems: [403, 404],
  handler: ({ principal, params }) =>
    inWorkspace(principal, params.id, ({ userId, workspaceId }) => requestAuditExport({ userId, workspaceId })).pipe(
      Effect.map((audit) => ({ status: 202, body: { ...audit, download: null } })),
    ),
});

/** GET /v1/workspaces/:id/audit-exports/:export_id — its requester, while an admin. */
export const getAuditExportRoute = defineRoute({
  method: "GET",
  path: "/v1/workspaces/:id/audit-exports/:export_id",
  operationId: "getFileAuditExport",
  summary: "An audit export's status and, once done, a short-lived download grant",
  tags,
  auth: "required",
  params: AuditExportParams,
  responses: { 200: AuditExportResponse },
  problems: [404],
  handler: ({ principal, params }) =>
    inWorkspace(principal, params.id, ({ userId, workspaceId }) => getAuditExport({ userId, workspaceId, exportId: params.export_id })).pipe(
      Effect.map((state) => ({ status: 200, body: { ...state.export, download: state.download }, headers: noStore })),
    ),
});

/** Audit export routes. */
export const auditExportRoutes = [requestAuditExportRoute, getAuditExportRoute];
