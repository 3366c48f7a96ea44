/** Branded ids of the file storage records (the workspace is the tenant). */
import { Schema } from "effect";

/** A workspace: the tenant of every file storage row. */
export const WorkspaceId = Schema.String.pipe(Schema.brand("WorkspaceId"));
export type WorkspaceId = typeof WorkspaceId.Type;

/** A node (file or folder). */
export const NodeId = Schema.String.pipe(Schema.brand("NodeId"));
export type NodeId = typeof NodeId.Type;

/** One immutable version of a file. */
export const FileVersionId = Schema.String.pipe(Schema.brand("FileVersionId"));
export type FileVersionId = typeof FileVersionId.Type;

/** An upload session. */
export const UploadSessionId = Schema.String.pipe(Schema.brand("UploadSessionId"));
export type UploadSessionId = typeof UploadSessionId.Type;

/** A share link. */
export const ShareLinkId = Schema.String.pipe(Schema.brand("ShareLinkId"));
export type ShareLinkId = typeof ShareLinkId.Type;
