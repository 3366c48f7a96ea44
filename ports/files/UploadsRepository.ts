/** Upload sessions and their parts. Settling a session is one conditional update, so it happens once. */
import { Context, type Effect } from "effect";
import type { UploadPart, UploadSession, UploadStatus } from "../../core/files/model/UploadSession.js";

export interface UploadsRepository {
  /** Stores a new session with its parts. */
  readonly insert: (session: UploadSession, parts: ReadonlyArray<UploadPart>) => Effect.Effect<void>;
  /** The workspace an upload session id belongs to, or null. */
  readonly workspaceOf: (id: string) => Effect.Effect<string | null>;
  /** The session of the workspace, or null. */
  readonly find: (workspaceId: string, id: string) => Effect.Effect<UploadSession | null>;
  /** The open sessions `createdBy` holds in the workspace (what a member removal aborts). */
  readonly openOf: (workspaceId: string, createdBy: string) => Effect.Effect<ReadonlyArray<UploadSession>>;
  /** The parts of a session by part number. */
  readonly parts: (workspaceId: string, sessionId: string) => Effect.Effect<ReadonlyArray<UploadPart>>;
  /**
   * Records the ETag of a part the store received (native multipart), replacing an earlier one
   * (the client sent the part again). Answers false when the session has no such part.
   */
  readonly recordPart: (req: { readonly workspaceId: string; readonly sessionId: string; readonly partNumber: number; readonly etag: string }) => Effect.Effect<boolean>;
  /**
   * Settles an open session: `open` -> `to`, its reservation set to zero, `versionId` recorded on
   * completion. Answers the bytes the session held, or null when it was no longer open.
   */
  readonly settle: (req: {
    readonly workspaceId: string;
    readonly id: string;
    readonly to: Exclude<UploadStatus, "open">;
    readonly versionId: string | null;
    readonly at: Date;
  }) => Effect.Effect<number | null>;
}
export const UploadsRepository = Context.GenericTag<UploadsRepository>("domainkit/files/UploadsRepository");
