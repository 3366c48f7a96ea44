/**
 * A workspace export: requested by one member, produced by a durable job as JSON lines of
 * everything that member may see, stored in the object store and downloaded with a grant.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { WorkspaceExportId, WorkspaceId } from "./Ids.js";

/** Where an export is; `expired`: done, and its object was deleted after retention (core/projects/TrashPurge.ts). */
export const ExportStatus = Schema.Literal("pending", "done", "failed", "expired");
export type ExportStatus = typeof ExportStatus.Type;

/** An export of one workspace for one requester. */
export const WorkspaceExport = Schema.Struct({
  id: WorkspaceExportId,
  workspaceId: WorkspaceId,
  requestedBy: Schema.String,
  status: ExportStatus,
  objectKey: Schema.String,
  size: Schema.NullOr(Schema.Int),
  sha256: Schema.NullOr(Schema.String),
  lineCount: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  completedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type WorkspaceExport = typeof WorkspaceExport.Type;

/** Wire shape of an export (the object key stays internal). */
export const ExportView = wireShape(Schema.Struct(Struct.omit(WorkspaceExport.fields, "objectKey")));
