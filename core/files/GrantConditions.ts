/**
 * What file storage's object store grants are issued under (ports/GrantChecks.ts), signed into
 * each grant the local store serves, and read back by CheckGrantCondition.ts when it is used.
 * Spec, Authentication 4 and 5: "A cached authorization decision is trusted only for a very
 * short session epoch"; "An authorization epoch is carried in caches and tokens".
 *
 * - A member's download or thumbnail: the node, the member, the drive's ACL epoch and the version
 *   whose bytes (or thumbnail) it serves.
 * - A download through a share link: the link, the node, the epoch and the version.
 * - An upload part: its session.
 *
 * Security review samples and audit exports carry none: their authority is the operator list
 * and workspace administration, not the drive's ACL, and the grant's short life bounds them.
 */
import { Effect, Schema } from "effect";
import type { GrantCondition } from "../../ports/GrantChecks.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import type { ShareLink } from "./model/ShareLink.js";
import type { UploadSession } from "./model/UploadSession.js";

/** The issuer name of file storage's grant conditions. */
export const filesGrantIssuer = "files";

// `version`: the file version served; a grant stops once it is no longer published (blocked). Optional
// so a grant issued before it was carried (at most one download lifetime old) still decodes.
const DownloadClaim = Schema.Struct({
  kind: Schema.Literal("download"),
  workspace: Schema.String,
  node: Schema.String,
  user: Schema.String,
  epoch: Schema.Number,
  version: Schema.optional(Schema.String),
});
const ShareClaim = Schema.Struct({
  kind: Schema.Literal("share"),
  workspace: Schema.String,
  link: Schema.String,
  node: Schema.String,
  epoch: Schema.Number,
  version: Schema.optional(Schema.String),
});
const UploadClaim = Schema.Struct({ kind: Schema.Literal("upload"), workspace: Schema.String, session: Schema.String });
/** Every claim file storage signs into a grant, by `kind`. */
export const FilesClaim = Schema.Union(DownloadClaim, ShareClaim, UploadClaim);
export type FilesClaim = typeof FilesClaim.Type;

const condition = (claim: FilesClaim): GrantCondition => ({ issuer: filesGrantIssuer, claim });

/**
 * The drive's ACL epoch now. Read before the access check a grant is issued after: a revocation
 * committed after this read moves the epoch past the one the grant carries, so it is re-checked.
 */
export const currentAclEpoch = (workspaceId: string): Effect.Effect<number, never, DriveRepository> =>
  Effect.map(Effect.flatMap(DriveRepository, (drives) => drives.find(workspaceId)), (drive) => drive?.aclEpoch ?? 0);

/** The condition of a member's download of version `versionId` of `nodeId` (or its thumbnail), authorized under `epoch`. */
export const downloadCondition = (input: {
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly userId: string;
  readonly epoch: number;
  readonly versionId: string;
}): GrantCondition => condition({ kind: "download", workspace: input.workspaceId, node: input.nodeId, user: input.userId, epoch: input.epoch, version: input.versionId });

/** The condition of a download of version `versionId` of `nodeId` through `link`, authorized under `epoch`. */
export const shareDownloadCondition = (link: ShareLink, nodeId: string, epoch: number, versionId: string): GrantCondition =>
  condition({ kind: "share", workspace: link.workspaceId, link: link.id, node: nodeId, epoch, version: versionId });

/** The condition of an upload session's part grants. */
export const uploadCondition = (session: UploadSession): GrantCondition => condition({ kind: "upload", workspace: session.workspaceId, session: session.id });
