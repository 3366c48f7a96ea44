/**
 * One immutable version of a file: its bytes (object key, size, SHA-256 in lowercase hex) never
 * change; only its status moves (VersionStatus.ts). Exactly one published version of a file is
 * current (`isCurrent`; a database partial UNIQUE index and CHECK). A restored old version is
 * a new version whose `restoredFromId` names the original.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { FileVersionId, NodeId, UploadSessionId, WorkspaceId } from "./Ids.js";

/** Where a version stands: quarantined until the scan answers; never downloadable unless published. */
export const VersionStatus = Schema.Literal("quarantined", "published", "blocked", "scan_failed");
export type VersionStatus = typeof VersionStatus.Type;

/** The file version record. */
export const FileVersion = Schema.Struct({
  id: FileVersionId,
  workspaceId: WorkspaceId,
  nodeId: NodeId,
  number: Schema.Int,
  sizeBytes: Schema.Int,
  sha256: Schema.String,
  contentType: Schema.String,
  /** The type the scan detected from the bytes (TypeDetection.ts); null until the scan read them. */
  detectedContentType: Schema.NullOr(Schema.String),
  objectKey: Schema.String,
  status: VersionStatus,
  isCurrent: Schema.Boolean,
  uploadSessionId: Schema.NullOr(UploadSessionId),
  restoredFromId: Schema.NullOr(FileVersionId),
  scanDetail: Schema.NullOr(Schema.String),
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
  publishedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type FileVersion = typeof FileVersion.Type;

/** The version as the API shows it: never the object key, the session or the scan detail. */
export const FileVersionView = Schema.Struct(
  Struct.omit(FileVersion.fields, "objectKey", "uploadSessionId", "scanDetail", "workspaceId"),
);
export const FileVersionWire = wireShape(FileVersionView);

/** A version as a share link's recipient sees it: without the member who stored it. */
export const SharedFileVersionView = Schema.Struct(Struct.omit(FileVersionView.fields, "createdBy"));
