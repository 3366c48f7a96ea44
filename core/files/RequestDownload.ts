/**
 * `POST /v1/nodes/:id/downloads {version_id?}` (spec: "Issue a short-lived download"; rule: the
 * grant is issued only after a current authorization check, and a quarantined version never
 * yields one). A viewer of the file gets a short-lived GET grant for its current version, or for
 * a named version of that file; a version that is not published — quarantined, blocked,
 * scan_failed — is 423 version_quarantined. The bytes go from the store to the client. The grant
 * carries the drive's ACL epoch (GrantConditions.ts): once the caller loses access, the local
 * store serves it no more.
 */
import { Effect } from "effect";
import { NotFound, type Forbidden } from "../kernel/Errors.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { requireAccess } from "./Access.js";
import { NotAFile, VersionQuarantined } from "./Errors.js";
import { currentAclEpoch, downloadCondition } from "./GrantConditions.js";
import type { FileVersion } from "./model/FileVersion.js";
import type { FilesServices } from "./Services.js";
import { servedContentType } from "./TypeDetection.js";
import { isDownloadable } from "./VersionStatus.js";
import { withSpan } from "../kernel/Span.js";

/** A download grant as the client receives it. */
export interface DownloadGrant {
  readonly url: string;
  readonly expiresAt: Date;
  readonly version: FileVersion;
}

/** Issues a download grant after a current access check. */
export const requestDownload = (input: {
  readonly userId: string;
  readonly workspaceId: string;
  readonly nodeId: string;
  readonly versionId: string | null;
}): Effect.Effect<DownloadGrant, NotFound | Forbidden | NotAFile | VersionQuarantined, FilesServices> =>
  Effect.gen(function* () {
    // The epoch before the check: the grant carries it, and a revocation after this read moves it.
    const epoch = yield* currentAclEpoch(input.workspaceId);
    const access = yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "view");
    const node = access.node;
    if (node.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: node.id }));
    const versionId = input.versionId ?? node.currentVersionId;
    // A file whose first version is still being scanned has nothing downloadable yet.
    if (versionId === null) return yield* Effect.fail(new VersionQuarantined({ versionId: "", status: "quarantined", detail: "the file has no published version yet" }));
    const version = yield* (yield* VersionsRepository).find(input.workspaceId, versionId);
    if (version === null || version.nodeId !== node.id) return yield* Effect.fail(new NotFound({ resource: "version" }));
    if (!isDownloadable(version.status)) {
      return yield* Effect.fail(new VersionQuarantined({ versionId: version.id, status: version.status, detail: `the version is ${version.status}` }));
    }
    const grant = yield* (yield* ObjectStore).grantDownload({
      key: version.objectKey,
      // The declared type only where the detected one agrees (HTML declared as a PNG goes out opaque).
      contentType: servedContentType(version.contentType, version.detectedContentType),
      filename: node.name,
      ttlMs: (yield* FilesSettings).downloadTtlMs,
      condition: downloadCondition({ workspaceId: input.workspaceId, nodeId: node.id, userId: input.userId, epoch, versionId: version.id }),
    });
    return { url: grant.url, expiresAt: grant.expiresAt, version };
  }).pipe(withSpan("files.requestDownload"));
