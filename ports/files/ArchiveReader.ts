/**
 * Archive reading for server-side extraction (spec should-have: "archive extraction for a zip
 * into a folder"). The input is untrusted: an adapter reads at most `maxArchiveBytes`, lists the
 * entries as the archive declares them (names as raw as the format allows, so the core decides
 * what is safe), and streams an entry's inflated bytes while refusing any byte beyond its
 * declared size — so a lying header cannot inflate past what was checked.
 */
import { Context, Data, type Effect, type Stream } from "effect";

/** What an entry is. Symbolic links and encrypted entries are reported, never read. */
export type ArchiveEntryKind = "file" | "directory" | "symlink" | "encrypted";

/** One entry as the archive declares it. */
export interface ArchiveEntry {
  /** Position in the archive (0-based). */
  readonly index: number;
  /** The entry's path as stored (separators and all; a directory ends with `/`). */
  readonly path: string;
  readonly kind: ArchiveEntryKind;
  /** Declared sizes. */
  readonly compressedBytes: number;
  readonly uncompressedBytes: number;
}

/** The archive cannot be read: not an archive, truncated, larger than allowed, or an entry inflates differently from its header. */
export class ArchiveUnreadable extends Data.TaggedError("ArchiveUnreadable")<{
  readonly reason: "too_large" | "corrupt" | "size_mismatch";
  readonly detail: string;
}> {}

/** An opened archive. */
export interface OpenedArchive {
  readonly entries: ReadonlyArray<ArchiveEntry>;
  /** The inflated bytes of a file entry; fails when they differ from its declared size. */
  readonly read: (entry: ArchiveEntry) => Stream.Stream<Uint8Array, ArchiveUnreadable>;
}

export interface ArchiveReader {
  /** Opens the zip archive held in `content`, reading at most `maxArchiveBytes` of it. */
  readonly openZip: (content: Stream.Stream<Uint8Array>, maxArchiveBytes: number) => Effect.Effect<OpenedArchive, ArchiveUnreadable>;
}
export const ArchiveReader = Context.GenericTag<ArchiveReader>("domainkit/files/ArchiveReader");
