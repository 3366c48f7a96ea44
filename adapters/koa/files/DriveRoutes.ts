/** Routes of a workspace's drive: read it (members), set its quota (workspace admins). */
import { Effect } from "effect";
import { getDrive, setQuota } from "../../../core/files/Drives.js";
import { defineRoute } from "../Route.js";
import { inWorkspace } from "./Callers.js";
import { DriveResponse, QuotaBody, WorkspaceParams } from "./FilesSchemas.js";

const tags = ["files"];

/** GET /v1/workspaces/:id/drive — a member; made with its root folder on first use. */
export const getDriveRoute = defineRoute({
  method: "GET",
  path: "/v1/workspaces/:id/drive",
  operationId: "getDrive",
  summary: "Read the workspace's drive: root folder, quota, used and reserved bytes",
  description: "Any member of the workspace. The drive and its root folder are made on first use with the default quota (FILES_DEFAULT_QUOTA_BYTES).",
  tags,
  auth: "required",
  params: WorkspaceParams,
  responses: { 200: DriveResponse },
  problems: [404],
  handler: ({ principal, params }) =>
    inWorkspace(principal, params.id, ({ userId, workspaceId }) => getDrive(userId, workspaceId)).pipe(Effect.map((drive) => ({ status: 200, body: drive }))),
});

/** PUT /v1/workspaces/:id/drive/quota — a workspace admin. */
export const setQuotaRoute = defineRoute({
  method: "PUT",
  path: "/v1/workspaces/:id/drive/quota",
  operationId: "setDriveQuota",
  summary: "Set the drive's quota (workspace admin)",
  description: "403 for a member who is not an admin; 409 quota_below_usage when the quota would fall below used + reserved bytes.",
  tags,
  auth: "required",
  params: WorkspaceParams,
  body: QuotaBody,
  responses: { 200: DriveResponse },
  problems: [403, 404, 409, 422],
  handler: ({ principal, params, body }) =>
    inWorkspace(principal, params.id, ({ userId, workspaceId }) => setQuota(userId, workspaceId, body.quota_bytes)).pipe(
      Effect.map((drive) => ({ status: 200, body: drive })),
    ),
});

/** Drive routes. */
export const driveRoutes = [getDriveRoute, setQuotaRoute];
