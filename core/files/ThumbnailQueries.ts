/**
 * `GET /v1/nodes/:id/thumbnail`: a viewer of an image file gets a short-lived grant to the
 * thumbnail of its current version (bytes never pass through the route). A file that is not an
 * image, has no published version or whose thumbnail is not made (yet) answers 404
 * `not_found` (resource `thumbnail`); a folder answers 409 `not_a_file`.
 */
import { Effect } from "effect";
import { NotFound, type Forbidden } from "../kernel/Errors.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { ThumbnailsRepository } from "../../ports/files/ThumbnailsRepository.js";
import { requireAccess } from "./Access.js";
import { NotAFile } from "./Errors.js";
import { currentAclEpoch, downloadCondition } from "./GrantConditions.js";
import type { FilesServices } from "./Services.js";
import { withSpan } from "../kernel/Span.js";

/** A thumbnail grant. */
export interface ThumbnailGrant {
  readonly url: string;
  readonly expiresAt: Date;
  readonly versionId: string;
  readonly contentType: string;
  readonly width: number;
  readonly height: number;
}

/** The grant to the thumbnail of a file's current version. */
export const requestThumbnail = (input: { readonly userId: string; readonly workspaceId: string; readonly nodeId: string }): Effect.Effect<ThumbnailGrant, NotFound | Forbidden | NotAFile, FilesServices> =>
  Effect.gen(function* () {
    const epoch = yield* currentAclEpoch(input.workspaceId); // before the check, as for downloads
    const node = (yield* requireAccess(input.workspaceId, input.userId, input.nodeId, "view")).node;
    if (node.kind !== "file") return yield* Effect.fail(new NotAFile({ nodeId: node.id }));
    const missing = new NotFound({ resource: "thumbnail", detail: "no thumbnail of the current version (not an image, or not made yet)" });
    if (node.currentVersionId === null) return yield* Effect.fail(missing);
    const thumbnail = yield* (yield* ThumbnailsRepository).find(input.workspaceId, node.currentVersionId);
    if (thumbnail === null || thumbnail.objectKey === null || thumbnail.contentType === null || thumbnail.width === null || thumbnail.height === null) {
      return yield* Effect.fail(missing);
    }
    const grant = yield* (yield* ObjectStore).grantDownload({
      key: thumbnail.objectKey,
      contentType: thumbnail.contentType,
      filename: `${node.name}.thumbnail.webp`,
      ttlMs: (yield* FilesSettings).thumbnailTtlMs,
      condition: downloadCondition({ workspaceId: input.workspaceId, nodeId: node.id, userId: input.userId, epoch, versionId: thumbnail.versionId }),
    });
    return { url: grant.url, expiresAt: grant.expiresAt, versionId: thumbnail.versionId, contentType: thumbnail.contentType, width: thumbnail.width, height: thumbnail.height };
  }).pipe(withSpan("files.requestThumbnail"));
