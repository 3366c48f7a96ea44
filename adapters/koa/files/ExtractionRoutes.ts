/**
 * Routes of archive extraction: a request answers 202 with the queued extraction; the job
 * unpacks the zip into quarantined versions; the requester polls its status.
 */
import { Effect } from "effect";
import { getExtraction, requestExtraction } from "../../../core/files/RequestExtraction.js";
import { defineRoute } from "../Route.js";
import { onExtraction, onNode } from "./Callers.js";
import { ExtractBody, ExtractionParams, ExtractionResponse, NodeParams } from "./FilesSchemas.js";

const tags = ["files"];

/** POST /v1/nodes/:id/extract — editor of the zip and of the destination; Idempotency-Key required. */
export const extractArchiveRoute = defineRoute({
  method: "POST",
  path: "/v1/nodes/:id/extract",
  operationId: "extractArchive",
  summary: "Unpack a zip file's current version into a folder (202; a job does the work)",
  description:
    "An editor of the zip file who may create in `parent_id` (default: the zip's folder). The job refuses the whole archive — status `failed` with " +
    "`failure_code` — for paths that leave the folder (`unsafe_path`), invalid names, symbolic links or encrypted entries, too many entries, " +
    "content or compression ratio over the limits, entries that inflate beyond their declared size, or content over the free quota (`quota_exceeded`). " +
    "Folders of the same name are merged into; other taken names get \" (2)\", \" (3)\", ... Every file becomes a quarantined version and is scanned " +
    "like an upload. 409 no_published_version for an archive not yet found clean.",
  tags,
  auth: "required",
  // One transaction, nothing called outside: the key and the answer commit with the work.
  oneTransaction: true,
  idempotency: "required",
  params: NodeParams,
  body: ExtractBody,
  responses: { 202: ExtractionResponse },
  problems: [403, 404, 409],
  handler: ({ principal, params, body }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => requestExtraction({ userId, workspaceId, nodeId: params.id, parentId: body.parent_id ?? null })).pipe(
      Effect.map((extraction) => ({ status: 202, body: extraction })),
    ),
});

/** GET /v1/extractions/:id — its requester reads the status (others: 404). */
export const getExtractionRoute = defineRoute({
  method: "GET",
  path: "/v1/extractions/:id",
  operationId: "getExtraction",
  summary: "Read an archive extraction's status and outcome",
  tags,
  auth: "required",
  params: ExtractionParams,
  responses: { 200: ExtractionResponse },
  problems: [404],
  handler: ({ principal, params }) =>
    onExtraction(principal, params.id, ({ userId, workspaceId }) => getExtraction({ userId, workspaceId, extractionId: params.id })).pipe(
      Effect.map((extraction) => ({ status: 200, body: extraction })),
    ),
});

/** Extraction routes. */
export const extractionRoutes = [extractArchiveRoute, getExtractionRoute];
