/**
 * Object storage port (spec: "Attachments are held in object storage"; file storage: "Clients
 * upload directly to storage with constrained grants. Bytes do not pass through the application
 * servers"). Cores ask for short-lived grants bound to one key, one method, and for uploads the
 * exact size and SHA-256; the client talks to the store with the grant. Server-side work (scans,
 * exports, purges) reads, writes and deletes objects directly.
 */
import { Context, Data, type Effect, type Stream } from "effect";
import type { GrantCondition } from "./GrantChecks.js";

/** A short-lived, signed permission to perform one operation on one object. */
export interface ObjectGrant {
  /** Where to send the request (root-relative when the store has no public base URL). */
  readonly url: string;
  readonly method: "PUT" | "GET";
  /** Headers the client must send with the request. */
  readonly headers: Readonly<Record<string, string>>;
  readonly expiresAt: Date;
}

/** What the store holds for one key: the verified size and lowercase hex SHA-256 of its bytes. */
export interface StoredObject {
  readonly key: string;
  readonly size: number;
  readonly sha256: string;
}

/** One part the store received, as the client reports it: its number and the `ETag` its PUT answered. */
export interface ReceivedPart {
  readonly partNumber: number;
  readonly etag: string;
}

/** The store refused to assemble the parts (one missing, an ETag that is not the part's, a part too small). */
export class MultipartRejected extends Data.TaggedError("MultipartRejected")<{ readonly detail: string }> {}

/** An unfinished multipart upload the store holds: its key, the store's upload id and when it began. */
export interface IncompleteMultipartUpload {
  readonly key: string;
  readonly uploadId: string;
  readonly initiatedAt: Date;
}

/** Where a listing of incomplete multipart uploads continues: after this key and upload id. */
export interface MultipartListingMarker {
  readonly key: string;
  readonly uploadId: string;
}

/**
 * Native multipart uploads (S3's CreateMultipartUpload / UploadPart / CompleteMultipartUpload):
 * the client PUTs each part to its own grant and the store assembles the parts itself, so no
 * byte passes through the server. The store is not asked which parts arrived (S3-compatible
 * servers differ on ListParts): the caller keeps the parts the client reports.
 */
export interface MultipartUploads {
  /** Starts a multipart upload that will become the object at `key`; answers the store's upload id. */
  readonly begin: (req: { readonly key: string; readonly contentType: string }) => Effect.Effect<string>;
  /** A grant to PUT part `partNumber` (exactly `size` bytes) of the upload, valid for `ttlMs`. */
  readonly grantPart: (req: {
    readonly key: string;
    readonly uploadId: string;
    readonly partNumber: number;
    readonly size: number;
    readonly ttlMs: number;
  }) => Effect.Effect<ObjectGrant>;
  /**
   * Assembles the parts (in part-number order) into the object at `key` and answers what is
   * stored there: its size and the SHA-256 of the whole object, computed by the store adapter,
   * never taken from the client.
   */
  readonly complete: (req: {
    readonly key: string;
    readonly uploadId: string;
    readonly parts: ReadonlyArray<ReceivedPart>;
  }) => Effect.Effect<StoredObject, MultipartRejected>;
  /** Discards an unfinished upload and whatever parts it holds (idempotent; best effort where the store cannot). */
  readonly abort: (req: { readonly key: string; readonly uploadId: string }) => Effect.Effect<void>;
  /**
   * One page of the unfinished uploads whose key starts with `prefix`, in (key, upload id) order
   * after `after`: those of the page begun before `startedBefore` (at most `limit` looked at), and
   * where the next page starts (null after the last). A store that cannot list answers nothing.
   */
  readonly listIncomplete: (req: {
    readonly prefix: string;
    readonly startedBefore: Date;
    readonly after: MultipartListingMarker | null;
    readonly limit: number;
  }) => Effect.Effect<{ readonly uploads: ReadonlyArray<IncompleteMultipartUpload>; readonly next: MultipartListingMarker | null }>;
}

/** The object store. Keys are `[A-Za-z0-9._-]` segments joined by `/`, at most 512 characters. */
export interface ObjectStore {
  /**
   * A grant to PUT exactly `size` bytes whose SHA-256 is `sha256` at `key`, valid for `ttlMs`.
   * With a `condition`, a store that serves its grants itself stores nothing unless the
   * GrantChecks port says it still holds; a presigning store cannot ask (GrantChecks.ts).
   */
  readonly grantUpload: (req: {
    readonly key: string;
    readonly size: number;
    readonly sha256: string;
    readonly contentType: string;
    readonly ttlMs: number;
    readonly condition?: GrantCondition;
  }) => Effect.Effect<ObjectGrant>;
  /**
   * A grant to GET the object at `key`, valid for `ttlMs`, served as `contentType` / `filename`;
   * with a `condition`, served only while it holds (as for uploads).
   */
  readonly grantDownload: (req: {
    readonly key: string;
    readonly contentType: string;
    readonly filename: string;
    readonly ttlMs: number;
    readonly condition?: GrantCondition;
  }) => Effect.Effect<ObjectGrant>;
  /** The object at `key`, or null when nothing was stored there. */
  readonly stat: (key: string) => Effect.Effect<StoredObject | null>;
  /** The bytes at `key` as a stream, or null when nothing was stored there. */
  readonly read: (key: string) => Effect.Effect<Stream.Stream<Uint8Array> | null>;
  /** Writes `content` at `key` (server-side, e.g. an export) and answers what was stored. */
  readonly put: (key: string, content: Stream.Stream<Uint8Array>) => Effect.Effect<StoredObject>;
  /** Deletes the object at `key`; false when there was none (deleting is idempotent). */
  readonly remove: (key: string) => Effect.Effect<boolean>;
  /** Native multipart uploads, when the store has them (a declared capability; absent: one object per part). */
  readonly multipart?: MultipartUploads;
}
export const ObjectStore = Context.GenericTag<ObjectStore>("domainkit/ObjectStore");
