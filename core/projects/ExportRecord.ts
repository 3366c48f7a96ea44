/**
 * A workspace export: requested by one member, produced by a durable job as JSON lines of
 * everything that member may see, stored in the object store and downloaded with a grant.
 */
import { Schema } from "effect";

/** Where an export is. */
export const ExportStatus = Schema.Literal("pending", "done", "failed");
export type ExportStatus = typeof ExportStatus.Type;

/** An export of one workspace for one requester. */
export interface WorkspaceExport {
  readonly id: string;
  readonly workspaceId: string;
  readonly requestedBy: string;
  readonly status: ExportStatus;
  readonly objectKey: string;
  readonly size: number | null;
  readonly sha256: string | null;
  readonly lineCount: number | null;
  readonly error: string | null;
  readonly createdAt: Date;
  readonly completedAt: Date | null;
}

/** Wire shape of an export. */
export const ExportView = Schema.Struct({
  id: Schema.String,
  workspace_id: Schema.String,
  requested_by: Schema.String,
  status: ExportStatus,
  size: Schema.NullOr(Schema.Int),
  sha256: Schema.NullOr(Schema.String),
  line_count: Schema.NullOr(Schema.Int),
  error: Schema.NullOr(Schema.String),
  created_at: Schema.String,
  completed_at: Schema.NullOr(Schema.String),
});

/** Wire shape of an export. */
export const exportView = (e: WorkspaceExport): typeof ExportView.Type => ({
  id: e.id,
  workspace_id: e.workspaceId,
  requested_by: e.requestedBy,
  status: e.status,
  size: e.size,
  sha256: e.sha256,
  line_count: e.lineCount,
  error: e.error,
  created_at: e.createdAt.toISOString(),
  completed_at: e.completedAt === null ? null : e.completedAt.toISOString(),
});
