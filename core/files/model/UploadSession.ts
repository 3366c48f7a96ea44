/**
 * An upload session: created together with its quota reservation (`reservedBytes`, equal to
 * `sizeBytes` while open and 0 once settled — a database CHECK), holding the declared size,
 * SHA-256 and name, split into parts of `partSizeBytes`. `nodeId` is set when the upload is a new
 * version of an existing file. A completed session names its version (`versionId`), so a
 * repeated complete with the same checksum answers the same version. With a store that has
 * native multipart, `storeUploadId` names the store's multipart upload and each part records the
 * ETag the client reported once the store received it.
 */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { FileVersionId, NodeId, UploadSessionId, WorkspaceId } from "./Ids.js";

/** Where a session stands (UploadStatus.ts holds the transitions). */
export const UploadStatus = Schema.Literal("open", "completed", "aborted", "expired", "failed");
export type UploadStatus = typeof UploadStatus.Type;

/** The upload session record. */
export const UploadSession = Schema.Struct({
  id: UploadSessionId,
  workspaceId: WorkspaceId,
  parentId: NodeId,
  nodeId: Schema.NullOr(NodeId),
  name: Schema.String,
  sizeBytes: Schema.Int,
  sha256: Schema.String,
  contentType: Schema.String,
  partSizeBytes: Schema.Int,
  partCount: Schema.Int,
  status: UploadStatus,
  reservedBytes: Schema.Int,
  versionId: Schema.NullOr(FileVersionId),
  /** The store's multipart upload id; null when each part is its own object. */
  storeUploadId: Schema.NullOr(Schema.String),
  createdBy: Schema.String,
  expiresAt: Schema.DateFromSelf,
  createdAt: Schema.DateFromSelf,
  updatedAt: Schema.DateFromSelf,
});
export type UploadSession = typeof UploadSession.Type;

/**
 * One part of a session: its own object bound to its size and SHA-256, or (native multipart) a
 * part of the session's object, received once the client reported its `etag`.
 */
export const UploadPart = Schema.Struct({
  sessionId: UploadSessionId,
  workspaceId: WorkspaceId,
  partNumber: Schema.Int,
  sizeBytes: Schema.Int,
  sha256: Schema.String,
  objectKey: Schema.String,
  etag: Schema.NullOr(Schema.String),
});
export type UploadPart = typeof UploadPart.Type;

/** A part's upload grant as the client sees it. */
export const PartGrant = Schema.Struct({
  partNumber: Schema.Int,
  url: Schema.String,
  headers: Schema.Record({ key: Schema.String, value: Schema.String }),
  expiresAt: Schema.DateFromSelf,
});
export type PartGrant = typeof PartGrant.Type;

/** The session as `POST /v1/uploads` and `GET /v1/uploads/:id` answer it. */
export const UploadSessionView = Schema.Struct({
  ...Struct.pick(UploadSession.fields, "id", "nodeId", "status", "sizeBytes", "partSizeBytes", "expiresAt"),
  parts: Schema.Array(PartGrant),
  receivedParts: Schema.Array(Schema.Int),
});
export type UploadSessionView = typeof UploadSessionView.Type;
export const UploadSessionWire = wireShape(UploadSessionView);

/** The view of a session with the grants and received parts the caller gets. */
export const uploadSessionView = (session: UploadSession, parts: ReadonlyArray<PartGrant>, receivedParts: ReadonlyArray<number>): UploadSessionView => ({
  id: session.id,
  nodeId: session.nodeId,
  status: session.status,
  sizeBytes: session.sizeBytes,
  partSizeBytes: session.partSizeBytes,
  expiresAt: session.expiresAt,
  parts,
  receivedParts,
});
