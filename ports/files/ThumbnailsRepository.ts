/** Thumbnails of published image versions, one per version. */
import { Context, type Effect } from "effect";
import type { ThumbnailRecord } from "../../core/files/model/Thumbnail.js";

export interface ThumbnailsRepository {
  /** Stores the thumbnail of a version; false when the version already has one (made by an earlier run). */
  readonly insert: (thumbnail: ThumbnailRecord) => Effect.Effect<boolean>;
  /** The thumbnail of a version, or null. */
  readonly find: (workspaceId: string, versionId: string) => Effect.Effect<ThumbnailRecord | null>;
}
export const ThumbnailsRepository = Context.GenericTag<ThumbnailsRepository>("domainkit/files/ThumbnailsRepository");
