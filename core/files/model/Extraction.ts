/**
 * An archive extraction (`POST /v1/nodes/:id/extract`): the published version of a zip file to
 * unpack into a folder, by whom, and how far it got. `queued → running → succeeded | failed`;
 * while running it holds `reservedBytes` of the drive's quota (the archive's declared content,
 * 0 otherwise — a database CHECK), which completion turns into used bytes and failure releases,
 * once. A failure carries a code (ExtractionFailure) and a detail.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { FileVersionId, NodeId, WorkspaceId } from "./Ids.js";

/** An extraction id. */
export const ExtractionId = Schema.String.pipe(Schema.brand("ExtractionId"));
export type ExtractionId = typeof ExtractionId.Type;

/** Where an extraction stands. */
export const ExtractionStatus = Schema.Literal("queued", "running", "succeeded", "failed");
export type ExtractionStatus = typeof ExtractionStatus.Type;

/** Why an extraction failed. */
export const ExtractionFailure = Schema.Literal(
  "archive_unreadable",
  "archive_too_large",
  "archive_gone",
  "destination_unavailable",
  "too_many_entries",
  "unsafe_path",
  "invalid_name",
  "unsupported_entry",
  "file_too_large",
  "content_too_large",
  "compression_ratio",
  "size_mismatch",
  "quota_exceeded",
);
export type ExtractionFailure = typeof ExtractionFailure.Type;

/** The extraction record. */
export const Extraction = Schema.Struct({
  id: ExtractionId,
  workspaceId: WorkspaceId,
  archiveNodeId: NodeId,
  archiveVersionId: FileVersionId,
  parentId: NodeId,
  status: ExtractionStatus,
  reservedBytes: Schema.Int,
  failureCode: Schema.NullOr(ExtractionFailure),
  failureDetail: Schema.NullOr(Schema.String),
  fileCount: Schema.Int,
  folderCount: Schema.Int,
  extractedBytes: Schema.Int,
  createdBy: Schema.String,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
  finishedAt: Schema.NullOr(Schema.DateFromSelf),
});
export type Extraction = typeof Extraction.Type;

/** The extraction as its requester reads it. */
export const ExtractionView = Schema.Struct(Struct.omit(Extraction.fields, "workspaceId", "reservedBytes", "createdBy", "updatedAt"));
export const ExtractionWire = wireShape(ExtractionView);
