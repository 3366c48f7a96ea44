/** The thumbnail route: a short-lived grant to the current version's thumbnail, never the bytes. */
import { Effect } from "effect";
import { requestThumbnail } from "../../../core/files/ThumbnailQueries.js";
import { defineRoute } from "../Route.js";
import { onNode } from "./Callers.js";
import { NodeParams, ThumbnailResponse } from "./FilesSchemas.js";

const noStore = { "Cache-Control": "no-store" };

/** GET /v1/nodes/:id/thumbnail — a viewer of the image file. */
export const thumbnailRoute = defineRoute({
  method: "GET",
  path: "/v1/nodes/:id/thumbnail",
  operationId: "getThumbnail",
  summary: "A short-lived grant to the thumbnail of an image file's current version",
  description:
    "A viewer of the file. GET the `url` before `expires_at` (WebP, at most 256 pixels on the longest side). Thumbnails are made by a job after a version is " +
    "published; 404 for a file that is not an image, has no published version, or whose thumbnail is not made yet; 409 not_a_file for a folder.",
  tags: ["files"],
  auth: "required",
  params: NodeParams,
  responses: { 200: ThumbnailResponse },
  problems: [403, 404, 409],
  handler: ({ principal, params }) =>
    onNode(principal, params.id, ({ userId, workspaceId }) => requestThumbnail({ userId, workspaceId, nodeId: params.id })).pipe(
      Effect.map((grant) => ({ status: 200, body: grant, headers: noStore })),
    ),
});

/** Thumbnail routes. */
export const thumbnailRoutes = [thumbnailRoute];
