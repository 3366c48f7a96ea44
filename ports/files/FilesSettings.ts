/** The file storage limits a host configures (documented defaults in `defaultFilesSettings`). */
import { Context } from "effect";

export interface FilesSettings {
  /** Quota of a new drive (FILES_DEFAULT_QUOTA_BYTES). */
  readonly defaultQuotaBytes: number;
  /** Largest single file. */
  readonly maxFileBytes: number;
  /** Size of every upload part but the last. */
  readonly partSizeBytes: number;
  /** How long an upload session (and its part grants) stays open. */
  readonly uploadTtlMs: number;
  /** How long a download grant lives. */
  readonly downloadTtlMs: number;
  /** Scan attempts before a version ends `scan_failed`. */
  readonly scanMaxAttempts: number;
  /** Longest one scan attempt may take; a scan that has not answered by then failed (spec: "scan fails or times out"). */
  readonly scanTimeoutMs: number;
  /** User ids of the platform's security operators (FILES_SECURITY_OPERATORS, like PLATFORM_OPERATORS). */
  readonly securityOperators: ReadonlyArray<string>;
  /** Deepest tree a move or access check walks. */
  readonly maxDepth: number;
  /** Days a trashed subtree is kept before the purge deletes it, unless held (FILES_TRASH_RETENTION_DAYS). */
  readonly trashRetentionDays: number;
  /** Days change records are kept for sync cursors (FILES_CHANGE_RETENTION_DAYS). */
  readonly changeRetentionDays: number;
  /** Largest archive an extraction reads (it is held in memory while extracting). */
  readonly extractMaxArchiveBytes: number;
  /** Most entries (files and folders) an archive may hold. */
  readonly extractMaxEntries: number;
  /** Most content (declared uncompressed bytes) an archive may hold. */
  readonly extractMaxTotalBytes: number;
  /** Largest compression ratio of an entry of at least `extractRatioMinBytes`. */
  readonly extractMaxRatio: number;
  readonly extractRatioMinBytes: number;
  /** Largest image a thumbnail is made of (larger ones are recorded `unsupported`). */
  readonly thumbnailMaxSourceBytes: number;
  /** How long a thumbnail grant lives. */
  readonly thumbnailTtlMs: number;
  /** How much of a text-like version is read for the search index (its first bytes; the rest is not searchable). */
  readonly searchTextMaxBytes: number;
  /** Lifetime of a share link created without `expires_at` (every link expires: spec, ShareLink). */
  readonly shareLinkDefaultTtlMs: number;
  /** Furthest a share link's `expires_at` may be from its creation. */
  readonly shareLinkMaxTtlMs: number;
  /** How long a finished audit export stays downloadable after it completed; then its object is removed (it names every actor of the trail). */
  readonly auditExportRetentionMs: number;
}
export const FilesSettings = Context.GenericTag<FilesSettings>("domainkit/files/FilesSettings");

/**
 * Defaults: 10 GiB quota, 5 GiB files, 8 MiB parts, 24 h sessions, 5 min downloads, 5 scan
 * attempts of at most 15 min each, depth 64, trash kept 30 days, changes 90 days; archives up to 256 MiB with 10,000
 * entries and 4 GiB of content, ratio at most 100 for entries of 1 MiB or more; thumbnails of
 * images up to 50 MiB, their grants 5 min; the first 64 KiB of a text-like version indexed for search;
 * share links live 30 days unless asked otherwise, at most 365 days; audit exports are kept 7 days.
 */
export const defaultFilesSettings: FilesSettings = {
  defaultQuotaBytes: 10 * 1024 ** 3,
  maxFileBytes: 5 * 1024 ** 3,
  partSizeBytes: 8 * 1024 ** 2,
  uploadTtlMs: 24 * 3600 * 1000,
  downloadTtlMs: 5 * 60 * 1000,
  scanMaxAttempts: 5,
  scanTimeoutMs: 15 * 60 * 1000,
  maxDepth: 64,
  securityOperators: [],
  trashRetentionDays: 30,
  changeRetentionDays: 90,
  extractMaxArchiveBytes: 256 * 1024 ** 2,
  extractMaxEntries: 10_000,
  extractMaxTotalBytes: 4 * 1024 ** 3,
  extractMaxRatio: 100,
  extractRatioMinBytes: 1024 ** 2,
  thumbnailMaxSourceBytes: 50 * 1024 ** 2,
  thumbnailTtlMs: 5 * 60 * 1000,
  searchTextMaxBytes: 64 * 1024,
  shareLinkDefaultTtlMs: 30 * 24 * 3600 * 1000,
  shareLinkMaxTtlMs: 365 * 24 * 3600 * 1000,
  auditExportRetentionMs: 7 * 24 * 3600 * 1000,
};
