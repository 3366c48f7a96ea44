/**
 * ArchiveReader over yauzl (a maintained zip reader that validates the central directory and,
 * with `validateEntrySizes`, fails a stream that inflates to more or fewer bytes than declared).
 * The archive is read into memory up to the bound (extractions are bounded by
 * `FilesSettings.extractMaxArchiveBytes`). Names are not decoded by yauzl's own validation
 * (`decodeStrings: false`) but with its low-level decoder in strict mode, so `\`, `..` and absolute
 * paths reach the core's rules instead of failing the whole archive as unreadable.
 */
import { Effect, Stream } from "effect";
import type { Readable } from "node:stream";
import yauzl from "yauzl";
import { ArchiveUnreadable, type ArchiveEntry, type ArchiveEntryKind, type ArchiveReader, type OpenedArchive } from "../../ports/files/ArchiveReader.js";

const symlinkMode = 0o120000;
const fileTypeMask = 0o170000;

const kindOf = (entry: yauzl.Entry, path: string): ArchiveEntryKind => {
  if (entry.isEncrypted()) return "encrypted";
  // Unix mode in the high half of the external attributes when made on Unix.
  if (((entry.externalFileAttributes >>> 16) & fileTypeMask) === symlinkMode) return "symlink";
  return path.endsWith("/") ? "directory" : "file";
};

const collect = (content: Stream.Stream<Uint8Array>, max: number): Effect.Effect<Buffer, ArchiveUnreadable> =>
  Effect.flatMap(
    Stream.runFoldWhile(content, { size: 0, chunks: new Array<Uint8Array>() }, (acc) => acc.size <= max, (acc, chunk) => {
      acc.chunks.push(chunk);
      return { size: acc.size + chunk.length, chunks: acc.chunks };
    }),
    (acc) =>
      acc.size > max
        ? Effect.fail(new ArchiveUnreadable({ reason: "too_large", detail: `the archive is larger than ${max} bytes` }))
        : Effect.succeed(Buffer.concat(acc.chunks)),
  );

const listEntries = (zip: yauzl.ZipFile): Promise<Array<{ readonly entry: yauzl.Entry; readonly info: ArchiveEntry }>> =>
  new Promise((resolve, reject) => {
    const out: Array<{ entry: yauzl.Entry; info: ArchiveEntry }> = [];
    zip.on("entry", (entry: yauzl.Entry) => {
      const path = yauzl.getFileNameLowLevel(entry.generalPurposeBitFlag, entry.fileNameRaw, entry.extraFields, true);
      out.push({
        entry,
        info: { index: out.length, path, kind: kindOf(entry, path), compressedBytes: entry.compressedSize, uncompressedBytes: entry.uncompressedSize },
      });
      zip.readEntry();
    });
    zip.on("end", () => resolve(out));
    zip.on("error", reject);
    zip.readEntry();
  });

const corrupt = (error: unknown): ArchiveUnreadable =>
  new ArchiveUnreadable({ reason: "corrupt", detail: error instanceof Error ? error.message : String(error) });

/** Builds the yauzl archive reader. */
export const makeYauzlArchiveReader = (): ArchiveReader => ({
  openZip: (content, maxArchiveBytes) =>
    Effect.gen(function* () {
      const buffer = yield* collect(content, maxArchiveBytes);
      const zip = yield* Effect.tryPromise({
        try: () => yauzl.fromBufferPromise(buffer, { lazyEntries: true, decodeStrings: false, validateEntrySizes: true }),
        catch: corrupt,
      });
      const listed = yield* Effect.tryPromise({ try: () => listEntries(zip), catch: corrupt });
      const opened: OpenedArchive = {
        entries: listed.map((l) => l.info),
        read: (wanted) => {
          const found = listed[wanted.index];
          if (found === undefined || found.info.kind !== "file") return Stream.fail(corrupt(`entry ${wanted.index} is not a readable file`));
          return Stream.unwrap(
            Effect.tryPromise({ try: (): Promise<Readable> => zip.openReadStreamPromise(found.entry), catch: corrupt }).pipe(
              Effect.map((readable) =>
                Stream.fromAsyncIterable(readable as AsyncIterable<Uint8Array>, (error) =>
                  error instanceof Error && /(too many|not enough) bytes in the stream/.test(error.message)
                    ? new ArchiveUnreadable({ reason: "size_mismatch", detail: error.message })
                    : corrupt(error),
                ),
              ),
            ),
          );
        },
      };
      return opened;
    }),
});
