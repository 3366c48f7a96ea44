/** Storage of task attachments (metadata only; bytes live in the ObjectStore). */
import { Context, Effect } from "effect";
import type { Attachment, AttachmentStatus, ThumbnailStatus } from "../../core/projects/model/Attachment.js";

/** The attachment repository. State changes are conditional updates: the database decides races. */
export interface AttachmentsRepository {
  readonly insertAttachment: (attachment: Attachment) => Effect.Effect<void>;
  readonly findAttachment: (id: string) => Effect.Effect<Attachment | null>;
  /** Attachments of a task in id order, strictly after `afterId`, at most `limit`. */
  readonly listAttachments: (req: {
    readonly taskId: string;
    readonly afterId?: string | undefined;
    readonly limit: number;
  }) => Effect.Effect<ReadonlyArray<Attachment>>;
  /** Moves `from` -> `to` (with the scan detail and times given); false when the status was not `from`. */
  readonly transition: (req: {
    readonly id: string;
    readonly from: ReadonlyArray<AttachmentStatus>;
    readonly to: AttachmentStatus;
    readonly scanDetail?: string | null;
    readonly completedAt?: Date;
    readonly scannedAt?: Date;
    /** Sets the thumbnail state in the same update (a clean scan decides `pending` or `unsupported`). */
    readonly thumbnail?: { readonly status: ThumbnailStatus; readonly detail?: string | null };
  }) => Effect.Effect<boolean>;
  /**
   * Settles a `pending` thumbnail of a clean attachment as `ready` (with its object), `unsupported`
   * or `failed`; false when it was not pending (another run settled it: nothing to do).
   */
  readonly settleThumbnail: (req: {
    readonly id: string;
    readonly status: Exclude<ThumbnailStatus, "pending">;
    readonly objectKey?: string;
    readonly contentType?: string;
    readonly width?: number;
    readonly height?: number;
    readonly detail?: string | null;
  }) => Effect.Effect<boolean>;
  /** Uploads never completed whose grant expired before `cutoff` (pending or purging), oldest first. */
  readonly expiredUploads: (cutoff: Date, limit: number) => Effect.Effect<ReadonlyArray<Attachment>>;
  /**
   * Infected or scan_failed attachments whose verdict came before `cutoff` and whose object is
   * not yet deleted, oldest verdict first (the retention purge's batch).
   */
  readonly quarantinedContent: (cutoff: Date, limit: number) => Effect.Effect<ReadonlyArray<Attachment>>;
  /** Records that an infected or scan_failed attachment's object was deleted; false when it already was (or is not such). */
  readonly markContentPurged: (id: string, at: Date) => Effect.Effect<boolean>;
  /** Hard-deletes a `purging` attachment row; false when it is not purging. */
  readonly deletePurging: (id: string) => Effect.Effect<boolean>;
}
export const AttachmentsRepository = Context.GenericTag<AttachmentsRepository>("domainkit/projects/AttachmentsRepository");
