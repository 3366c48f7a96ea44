/**
 * The thumbnail job (kind `files.thumbnail`, keyed by version, queued by the publish path for an
 * `image/*` version: ScanVersion.ts). It reads the published version (up to
 * `thumbnailMaxSourceBytes`), asks the Thumbnailer, stores the result in the object store
 * (`files/<ws>/thumbnails/<version id>`) and records it; an image the thumbnailer does not decode
 * is recorded `unsupported`, a corrupt or oversized one `rejected`, so no run repeats the work. A
 * version that is gone or not published is left alone, also when the trash purge deletes it while
 * the thumbnail is being made (then the object made is removed). Thumbnails are not counted in the quota.
 */
import { Chunk, Effect, Schema, Stream } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { Thumbnailer } from "../../ports/Thumbnailer.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { ThumbnailsRepository } from "../../ports/files/ThumbnailsRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import type { FileVersion } from "./model/FileVersion.js";
import type { ThumbnailRecord } from "./model/Thumbnail.js";
import { withSpan } from "../kernel/Span.js";

/** Whether a version gets a thumbnail job when published. */
export const wantsThumbnail = (version: Pick<FileVersion, "contentType">): boolean => version.contentType.toLowerCase().startsWith("image/");

/** The object key of a version's thumbnail. */
export const thumbnailKey = (workspaceId: string, versionId: string): string => `files/${workspaceId}/thumbnails/${versionId}`;

/** Makes (once) the thumbnail of a published version; answers its status, or null when there is nothing to do. */
export const makeThumbnail = (workspaceId: string, versionId: string) =>
  Effect.gen(function* () {
    const thumbnails = yield* ThumbnailsRepository;
    const existing = yield* thumbnails.find(workspaceId, versionId);
    if (existing !== null) return existing.status;
    const version = yield* (yield* VersionsRepository).find(workspaceId, versionId);
    if (version === null || version.status !== "published") return null;
    const settings = yield* FilesSettings;
    const base = { versionId: version.id, workspaceId: version.workspaceId, nodeId: version.nodeId, objectKey: null, contentType: null, width: null, height: null };
    const at = yield* now;
    // Recorded under the drive lock, which the trash purge holds while it deletes versions: a
    // version purged meanwhile is not recorded (null), and its thumbnail object is not kept.
    const record = (r: ThumbnailRecord) =>
      Effect.flatMap(Transactions, (tx) =>
        tx.run(
          Effect.gen(function* () {
            yield* (yield* DriveRepository).lock(workspaceId);
            if ((yield* (yield* VersionsRepository).find(workspaceId, versionId)) === null) return null;
            yield* thumbnails.insert(r);
            return r.status;
          }),
        ),
      );
    if (version.sizeBytes > settings.thumbnailMaxSourceBytes) {
      return yield* record({ ...base, status: "unsupported", detail: `larger than ${settings.thumbnailMaxSourceBytes} bytes`, createdAt: at });
    }
    const store = yield* ObjectStore;
    const content = yield* store.read(version.objectKey);
    if (content === null) return null;
    const chunks = yield* Stream.runCollect(content);
    const bytes = Buffer.concat(Chunk.toReadonlyArray(chunks));
    const made = yield* Effect.either((yield* Thumbnailer).thumbnail({ bytes, contentType: version.contentType }));
    if (made._tag === "Left") return yield* record({ ...base, status: "rejected", detail: made.left.message, createdAt: at });
    if (made.right._tag === "Unsupported") return yield* record({ ...base, status: "unsupported", detail: made.right.reason, createdAt: at });
    const thumbnail = made.right.thumbnail;
    const stored = yield* store.put(thumbnailKey(version.workspaceId, version.id), Stream.make(thumbnail.bytes));
    const recorded = yield* record({
      ...base,
      status: "ready",
      objectKey: stored.key,
      contentType: thumbnail.contentType,
      width: thumbnail.width,
      height: thumbnail.height,
      detail: null,
      createdAt: at,
    });
    // The purge found no thumbnail of the version to remove: this one goes now.
    if (recorded === null) yield* store.remove(stored.key);
    return recorded;
  }).pipe(withSpan("files.makeThumbnail"));

export const thumbnailJob = defineJob({
  kind: "files.thumbnail",
  payload: Schema.Struct({ workspace_id: Schema.String, version_id: Schema.String }),
  handle: (payload) => Effect.asVoid(makeThumbnail(payload.workspace_id, payload.version_id)),
});
