/**
 * Request shapes of the file storage endpoints (snake_case, docs/conventions.md, HTTP) and the
 * response shapes derived from the records of core/files/model (`wireShape`). Nested records
 * (part grants, a change's node) are their own derived wire shapes, so every key on the wire is
 * snake_case and every time RFC 3339.
 */
import { Schema, Struct } from "effect";
import { RequestTime } from "../RequestTime.js";
import { wireShape } from "../../../core/kernel/Wire.js";
import { AclEntryView, NodeRole } from "../../../core/files/model/AclEntry.js";
import { ChangeItem } from "../../../core/files/model/Change.js";
import { DriveView } from "../../../core/files/model/Drive.js";
import { ExtractionId, ExtractionView } from "../../../core/files/model/Extraction.js";
import { AuditExportId, AuditExportView } from "../../../core/files/model/AuditExport.js";
import { FileVersionView, SharedFileVersionView } from "../../../core/files/model/FileVersion.js";
import { NodeTombstone, NodeView, SharedNodeView } from "../../../core/files/model/Node.js";
import { ShareLink, ShareLinkView } from "../../../core/files/model/ShareLink.js";
import { PartGrant, UploadSessionView } from "../../../core/files/model/UploadSession.js";
import { pageQueryFields } from "../Pagination.js";
import { idOf, RouteId } from "../RouteIds.js";
import { FileVersionId, NodeId, ShareLinkId, UploadSessionId, WorkspaceId } from "../../../core/files/model/Ids.js";

const Id = RouteId;

/** `/v1/nodes/:id...`: a node. */
export const NodeParams = Schema.Struct({ id: idOf(NodeId) });

/** `/v1/workspaces/:id...`: a workspace (its drive, trash, audit exports). */
export const WorkspaceParams = Schema.Struct({ id: idOf(WorkspaceId) });

/** `/v1/uploads/:id...`: an upload session. */
export const UploadParams = Schema.Struct({ id: idOf(UploadSessionId) });

/** `/v1/operator/file-versions/:id...`: a file version. */
export const FileVersionParams = Schema.Struct({ id: idOf(FileVersionId) });

/** `/v1/extractions/:id`: an archive extraction. */
export const ExtractionParams = Schema.Struct({ id: idOf(ExtractionId) });

/** `/v1/nodes/:id/permissions/:user_id`. */
export const PermissionParams = Schema.Struct({ id: idOf(NodeId), user_id: Id });

/** `/v1/nodes/:id/share-links/:link_id`. */
export const ShareLinkParams = Schema.Struct({ id: idOf(NodeId), link_id: idOf(ShareLinkId) });

/** `/v1/nodes/:id/versions/:version_id/restore`. */
export const VersionParams = Schema.Struct({ id: idOf(NodeId), version_id: idOf(FileVersionId) });

/** Query of the cursor lists. */
export const PageQuery = Schema.Struct(pageQueryFields);

/** Query of GET /v1/workspaces/:id/drive/search: the words to find (each a prefix; at most 8 count) and the page. */
export const DriveSearchQuery = Schema.Struct({
  q: Schema.String.pipe(Schema.maxLength(500)).annotations({ description: "Words to find in node names and in the text of text-like current versions; every word must match (as a prefix)." }),
  ...pageQueryFields,
});

/** Body of PUT /v1/workspaces/:id/drive/quota. */
export const QuotaBody = Schema.Struct({
  quota_bytes: Schema.Int.pipe(Schema.between(0, Number.MAX_SAFE_INTEGER)).annotations({ description: "The drive's quota in bytes; never below used + reserved (409 quota_below_usage)." }),
});

/** Body of POST /v1/nodes. */
export const CreateFolderBody = Schema.Struct({
  parent_id: Id,
  name: Schema.String,
  kind: Schema.Literal("folder").annotations({ description: "Only folders are created here; files come from uploads." }),
});

/** Body of PUT /v1/nodes/:id/legal-hold. */
export const LegalHoldBody = Schema.Struct({
  hold: Schema.Boolean.annotations({ description: "true places the hold, false releases it." }),
  reason: Schema.String.annotations({ description: "Why (1 to 1000 characters); kept in the audit trail." }),
});

/** Body of PATCH /v1/nodes/:id: the new name and/or the new parent. */
export const PatchNodeBody = Schema.Struct({
  name: Schema.optional(Schema.String),
  parent_id: Schema.optional(Id),
});

/** Body of POST /v1/uploads. */
export const CreateUploadBody = Schema.Struct({
  parent_id: Id.annotations({ description: "The folder the new file goes into (for a new version: the file's folder)." }),
  name: Schema.String,
  size_bytes: Schema.Int.pipe(Schema.between(0, Number.MAX_SAFE_INTEGER)),
  sha256: Schema.String.annotations({ description: "SHA-256 of the whole file, lowercase hex." }),
  content_type: Schema.optionalWith(Schema.String.pipe(Schema.minLength(1), Schema.maxLength(255)), { default: () => "application/octet-stream" }),
  node_id: Schema.optional(Schema.NullOr(Id)).annotations({ description: "Set to upload a new version of this file." }),
  part_sha256: Schema.optional(Schema.Array(Schema.String).pipe(Schema.maxItems(10_000))).annotations({
    description: "SHA-256 of each part in order (lowercase hex); required when the file has more than one part.",
  }),
});

/** `/v1/uploads/:id/parts/:part_number`. */
export const UploadPartParams = Schema.Struct({
  id: idOf(UploadSessionId),
  part_number: Schema.NumberFromString.pipe(Schema.int(), Schema.between(1, 10_000)).annotations({ description: "The part's number, from 1." }),
});

const Etag = Schema.String.annotations({ description: "The `ETag` response header of the part's PUT, exactly as the store sent it (quotes included)." });

/** Body of PUT /v1/uploads/:id/parts/:part_number. */
export const ReportUploadPartBody = Schema.Struct({ etag: Etag });

/** Body of POST /v1/uploads/:id/complete. */
export const CompleteUploadBody = Schema.Struct({
  sha256: Schema.String,
  parts: Schema.optional(
    Schema.Array(Schema.Struct({ part_number: Schema.Int.pipe(Schema.between(1, 10_000)), etag: Etag })).pipe(Schema.maxItems(10_000)),
  ).annotations({ description: "Parts stored but not yet reported (PUT /v1/uploads/:id/parts/:part_number), with their ETags." }),
});

/** Body of POST /v1/nodes/:id/downloads. */
export const DownloadBody = Schema.Struct({
  version_id: Schema.optional(Schema.NullOr(Id)).annotations({ description: "A version of this file; the current version when omitted." }),
});

/** Body of POST /v1/nodes/:id/permissions. */
export const GrantBody = Schema.Struct({ user_id: Id, role: NodeRole });

/** Body of POST /v1/nodes/:id/share-links. */
export const CreateShareLinkBody = Schema.Struct({
  expires_at: Schema.optional(Schema.NullOr(RequestTime)).annotations({ description: "RFC 3339 time in the future, at most 365 days ahead (FilesSettings.shareLinkMaxTtlMs); 30 days from now when omitted or null (shareLinkDefaultTtlMs): every link expires." }),
  allow_download: Schema.optionalWith(Schema.Boolean, { default: () => false }),
});

/** Query of GET /v1/file-shares/access: a node inside the shared folder (the shared node when omitted). */
export const SharedNodeQuery = Schema.Struct({ node_id: Schema.optional(Id) });

/** Query of GET /v1/file-shares/access/children: a folder inside the shared subtree (the shared folder when omitted). */
export const SharedChildrenQuery = Schema.Struct({ parent_id: Schema.optional(Id), ...pageQueryFields });

/** Body of POST /v1/file-shares/access/downloads. */
export const SharedDownloadBody = Schema.Struct({ node_id: Schema.optional(Schema.NullOr(Id)) });

/** Query of GET /v1/changes. */
export const ChangesQuery = Schema.Struct({ workspace_id: Id, ...pageQueryFields });

/** Body of POST /v1/operator/file-versions/:id/review. */
export const ReviewBody = Schema.Struct({ decision: Schema.Literal("release", "block"), reason: Schema.String });

/** Body of POST /v1/operator/file-versions/:id/samples. */
export const SampleBody = Schema.Struct({ reason: Schema.String });

/** A drive: `{root_node_id, quota_bytes, used_bytes, reserved_bytes}`. */
export const DriveResponse = wireShape(DriveView);

/** A node. */
export const NodeResponse = wireShape(NodeView);

/** A node as a share link's recipient sees it (no workspace, no legal hold). */
export const SharedNodeResponse = wireShape(SharedNodeView);

/** A file version (never its object key). */
export const VersionResponse = wireShape(FileVersionView);

/** An upload session with its part grants (`parts[].url`, `parts[].headers`) and `received_parts`. */
export const UploadResponse = wireShape(Schema.Struct({ ...UploadSessionView.fields, parts: Schema.Array(wireShape(PartGrant)) }));

/** A download grant: the URL (short-lived), its expiry and the version it serves. */
export const DownloadResponse = Schema.Struct({
  url: Schema.String,
  expiresAt: Schema.propertySignature(Schema.Date).pipe(Schema.fromKey("expires_at")),
  // A nested record is its own derived wire shape (a record field cannot hold one).
  version: VersionResponse,
});

/** A download grant through a share link: the version without the member who stored it. */
export const SharedDownloadResponse = Schema.Struct({
  url: Schema.String,
  expiresAt: Schema.propertySignature(Schema.Date).pipe(Schema.fromKey("expires_at")),
  version: wireShape(SharedFileVersionView),
});

/** A direct grant on a node. */
export const PermissionResponse = wireShape(AclEntryView);

/** A share link as listed (never the token). */
export const ShareLinkResponse = wireShape(ShareLinkView);

/** A new share link: its token is shown here once. */
export const CreatedShareLinkResponse = wireShape(
  Schema.Struct({ ...Struct.pick(ShareLink.fields, "id", "nodeId", "allowDownload", "expiresAt"), token: Schema.String }),
);

/** One item of the change feed: the node as it is now, or its tombstone. */
export const ChangeResponse = Schema.Struct({
  seq: ChangeItem.fields.seq,
  nodeId: Schema.propertySignature(ChangeItem.fields.nodeId).pipe(Schema.fromKey("node_id")),
  type: ChangeItem.fields.type,
  // Nested records are their own derived wire shapes (a record field cannot hold one).
  node: Schema.NullOr(NodeResponse),
  tombstone: Schema.NullOr(wireShape(NodeTombstone)),
});

/** A page of the change feed: `next_cursor` is never null (keep it to ask for later changes). */
export const ChangesPageResponse = Schema.Struct({
  data: Schema.Array(ChangeResponse),
  nextCursor: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("next_cursor")),
  hasMore: Schema.propertySignature(Schema.Boolean).pipe(Schema.fromKey("has_more")),
});

/** The outcome of a review: the version's status now (`skipped` when it had already moved). */
export const ReviewResponse = Schema.Struct({ version_id: Schema.String, status: Schema.String });

/** Body of POST /v1/nodes/:id/extract: the destination folder (default: the archive's folder). */
export const ExtractBody = Schema.Struct({ parent_id: Schema.optional(Schema.NullOr(Id)) });

/** An archive extraction as its requester reads it. */
export const ExtractionResponse = wireShape(ExtractionView);

/** A thumbnail grant: GET `url` before `expires_at`. */
export const ThumbnailResponse = Schema.Struct({
  url: Schema.String,
  expiresAt: Schema.propertySignature(Schema.Date).pipe(Schema.fromKey("expires_at")),
  versionId: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("version_id")),
  contentType: Schema.propertySignature(Schema.String).pipe(Schema.fromKey("content_type")),
  width: Schema.Int,
  height: Schema.Int,
});

/** `/v1/workspaces/:id/audit-exports/:export_id`. */
export const AuditExportParams = Schema.Struct({ id: idOf(WorkspaceId), export_id: idOf(AuditExportId) });

/** An audit export; `download` is a short-lived grant once it is done (else null). */
export const AuditExportResponse = Schema.extend(
  wireShape(AuditExportView),
  Schema.Struct({
    download: Schema.NullOr(
      Schema.Struct({ url: Schema.String, expiresAt: Schema.propertySignature(Schema.Date).pipe(Schema.fromKey("expires_at")) }),
    ),
  }),
);
