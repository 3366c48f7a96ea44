/**
 * An export of a workspace's file storage audit trail (`fs_audit`) as JSON lines, made by a job
 * into the object store: `pending → done | failed`. A done export names its object, size,
 * checksum and line count; its requester downloads it with a short-lived grant.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { WorkspaceId } from "./Ids.js";

/** An audit export id. */
export const AuditExportId = Schema.String.pipe(Schema.brand("AuditExportId"));
export type AuditExportId = typeof AuditExportId.Type;

export const AuditExportStatus = Schema.Literal("pending", "done", "failed");
export type AuditExportStatus = typeof AuditExportStatus.Type;

/** The audit export record. */
export const AuditExport = Schema.Struct({
  id: AuditExportId,
  workspaceId: WorkspaceId,
  requestedBy: Schema.String,
  status: AuditExportStatus,
  objectKey: Schema.String,
  sizeBytes: Schema.NullOr(Schema.Int),
  sha256: Schema.NullOr(Schema.String),
  lineCount: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  createdAt: Schema.DateFromSelf,
  completedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type AuditExport = typeof AuditExport.Type;

/** The export as the API shows it (without its object key and requester). */
export const AuditExportView = Schema.Struct(Struct.omit(AuditExport.fields, "objectKey", "requestedBy"));
export const AuditExportWire = wireShape(AuditExportView);
