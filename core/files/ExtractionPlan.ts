/**
 * What an archive may contain before anything is written (docs/decisions.md, File storage slice
 * 3). Every rule refuses the whole archive — a crafted entry makes all of it suspect:
 * - at most `extractMaxEntries` entries (directories included): `too_many_entries`;
 * - a path is `/`-separated segments: a NUL or control character, a backslash, an absolute path
 *   (`/…`) or a drive letter (`C:…`), or a `..` segment is `unsafe_path`; every other segment must
 *   be a valid node name (Names.ts; `.` and empty segments are not) — `invalid_name`; deeper than
 *   `maxDepth` is `unsafe_path`;
 * - symbolic links and encrypted entries are `unsupported_entry`;
 * - a file over `maxFileBytes` is `file_too_large`; declared content over
 *   `extractMaxTotalBytes` is `content_too_large`; an entry of at least `extractRatioMinBytes`
 *   whose declared size is more than `extractMaxRatio` times its compressed size is
 *   `compression_ratio`. (The inflated bytes are checked against the declared ones as they are
 *   read: ExtractArchive.ts.)
 * The plan lists the folders to make (every prefix of a path, shallowest first, once) and the files.
 */
import { Data, Effect } from "effect";
import type { ArchiveEntry } from "../../ports/files/ArchiveReader.js";
import type { FilesSettings } from "../../ports/files/FilesSettings.js";
import type { ExtractionFailure } from "./model/Extraction.js";
import { validName } from "./Names.js";

/** Why an archive is refused. */
export class ExtractionRefused extends Data.TaggedError("ExtractionRefused")<{ readonly code: ExtractionFailure; readonly detail: string }> {}

/** A file to extract: its entry, its path as node names, its declared size. */
export interface PlannedFile {
  readonly entry: ArchiveEntry;
  readonly path: ReadonlyArray<string>;
  readonly sizeBytes: number;
}

/** What an extraction will make. */
export interface ExtractionPlanned {
  /** Folder paths, shallowest first, each once. */
  readonly folders: ReadonlyArray<ReadonlyArray<string>>;
  readonly files: ReadonlyArray<PlannedFile>;
  readonly totalBytes: number;
}

type Limits = Pick<
  FilesSettings,
  "extractMaxEntries" | "extractMaxTotalBytes" | "extractMaxRatio" | "extractRatioMinBytes" | "maxFileBytes" | "maxDepth"
>;

// NUL and every other control character (C0, DEL, C1).
const controls = /[\u0000-\u001f\u007f-\u009f]/;

const refuse = (code: ExtractionFailure, detail: string) => Effect.fail(new ExtractionRefused({ code, detail }));

/** The node names of an entry's path, or why it is refused. */
const segmentsOf = (entry: ArchiveEntry, maxDepth: number): Effect.Effect<ReadonlyArray<string>, ExtractionRefused> =>
  Effect.gen(function* () {
    const raw = entry.path;
    const shown = JSON.stringify(raw);
    if (controls.test(raw) || raw.includes("\\") || raw.startsWith("/") || /^[A-Za-z]:/.test(raw)) {
      return yield* refuse("unsafe_path", `entry ${entry.index} ${shown} is not a relative path`);
    }
    const parts = (entry.kind === "directory" ? raw.replace(/\/$/, "") : raw).split("/");
    if (parts.includes("..")) return yield* refuse("unsafe_path", `entry ${entry.index} ${shown} leaves its folder`);
    if (parts.length > maxDepth) return yield* refuse("unsafe_path", `entry ${entry.index} ${shown} is deeper than ${maxDepth}`);
    return yield* Effect.forEach(parts, (part) =>
      validName(part).pipe(Effect.mapError(() => new ExtractionRefused({ code: "invalid_name", detail: `entry ${entry.index} ${shown} has an invalid name` }))),
    );
  });

/** Checks the entries against the limits and plans the folders and files. */
export const planExtraction = (entries: ReadonlyArray<ArchiveEntry>, limits: Limits): Effect.Effect<ExtractionPlanned, ExtractionRefused> =>
  Effect.gen(function* () {
    if (entries.length > limits.extractMaxEntries) return yield* refuse("too_many_entries", `${entries.length} entries, at most ${limits.extractMaxEntries}`);
    const folders = new Map<string, ReadonlyArray<string>>();
    const addFolder = (path: ReadonlyArray<string>) => {
      for (let depth = 1; depth <= path.length; depth++) {
        const prefix = path.slice(0, depth);
        folders.set(prefix.join("/"), prefix);
      }
    };
    const files: PlannedFile[] = [];
    let totalBytes = 0;
    for (const entry of entries) {
      if (entry.kind === "symlink" || entry.kind === "encrypted") return yield* refuse("unsupported_entry", `entry ${entry.index} ${JSON.stringify(entry.path)} is ${entry.kind === "symlink" ? "a symbolic link" : "encrypted"}`);
      const path = yield* segmentsOf(entry, limits.maxDepth);
      if (entry.kind === "directory") {
        addFolder(path);
        continue;
      }
      if (entry.uncompressedBytes > limits.maxFileBytes) return yield* refuse("file_too_large", `entry ${entry.index} declares ${entry.uncompressedBytes} bytes, at most ${limits.maxFileBytes}`);
      if (entry.uncompressedBytes >= limits.extractRatioMinBytes && entry.uncompressedBytes > entry.compressedBytes * limits.extractMaxRatio) {
        return yield* refuse("compression_ratio", `entry ${entry.index} inflates ${entry.compressedBytes} bytes to ${entry.uncompressedBytes}, more than ${limits.extractMaxRatio} times`);
      }
      totalBytes += entry.uncompressedBytes;
      if (totalBytes > limits.extractMaxTotalBytes) return yield* refuse("content_too_large", `the archive declares more than ${limits.extractMaxTotalBytes} bytes of content`);
      addFolder(path.slice(0, -1));
      files.push({ entry, path, sizeBytes: entry.uncompressedBytes });
    }
    const ordered = [...folders.values()].sort((a, b) => a.length - b.length);
    return { folders: ordered, files, totalBytes };
  });
