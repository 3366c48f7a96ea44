/**
 * The thumbnail of one published image version (made once per version by the thumbnail job):
 * `ready` with its object, or `unsupported` (not an image the thumbnailer decodes) or
 * `rejected` (corrupt, or too many pixels) — recorded so the job never tries again.
 */
import { Schema } from "effect";
import { FileVersionId, NodeId, WorkspaceId } from "./Ids.js";

export const ThumbnailStatus = Schema.Literal("ready", "unsupported", "rejected");
export type ThumbnailStatus = typeof ThumbnailStatus.Type;

/** The thumbnail record. */
export const ThumbnailRecord = Schema.Struct({
  versionId: FileVersionId,
  workspaceId: WorkspaceId,
  nodeId: NodeId,
  status: ThumbnailStatus,
  objectKey: Schema.NullOr(Schema.String),
  contentType: Schema.NullOr(Schema.String),
  width: Schema.NullOr(Schema.Int),
  height: Schema.NullOr(Schema.Int),
  detail: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
});
export type ThumbnailRecord = typeof ThumbnailRecord.Type;
