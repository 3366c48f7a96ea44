/**
 * The text of a node's search document (job `files.search_text`, keyed by version, queued by the
 * indexer when a node's document moves to a text-like version: SearchIndexing.ts). It reads the
 * first `searchTextMaxBytes` of the published version from the object store — outside any
 * transaction — and sets the words of that text on the document, only while the document is still
 * of that version (a newer version's text is never replaced by an older one's). Text-like is
 * decided by the detected type (the bytes, TypeDetection.ts), the declared one only where nothing
 * was detected; markup (HTML, XML, SVG) is indexed without its tags.
 */
import { Chunk, Effect, Schema, Stream } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { searchableText } from "../kernel/SearchTerms.js";
import { withSpan } from "../kernel/Span.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { NodeSearchIndex } from "../../ports/files/NodeSearchIndex.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import type { FileVersion } from "./model/FileVersion.js";

/** The type a version is searched as: the detected one, else the declared one. */
export const searchContentType = (version: Pick<FileVersion, "contentType" | "detectedContentType">): string => version.detectedContentType ?? version.contentType;

const mediaType = (contentType: string): string => (contentType.split(";")[0] ?? "").trim().toLowerCase();

const markupTypes = new Set(["text/html", "text/xml", "application/xml", "application/xhtml+xml", "image/svg+xml"]);

/** Whether a version's text is indexed: text, JSON, XML or SVG by its search type. */
export const isTextLike = (version: Pick<FileVersion, "contentType" | "detectedContentType">): boolean => {
  const type = mediaType(searchContentType(version));
  return type.startsWith("text/") || markupTypes.has(type) || type === "application/json" || type.endsWith("+json") || type.endsWith("+xml");
};

/** The searchable words of `bytes` read as UTF-8 text of `contentType` (markup without its tags). */
export const textOf = (bytes: Uint8Array, contentType: string): string => {
  // A character cut by the byte bound decodes as a replacement character, which is no word.
  const text = new TextDecoder("utf-8").decode(bytes);
  return searchableText(markupTypes.has(mediaType(contentType)) ? text.replace(/<[^>]*>/g, " ") : text);
};

/** The first `max` bytes of `content` (the rest is not read). */
const headOf = (content: Stream.Stream<Uint8Array>, max: number): Effect.Effect<Uint8Array> =>
  Stream.runFoldWhile(
    content,
    { chunks: Chunk.empty<Uint8Array>(), size: 0 },
    (kept) => kept.size < max,
    (kept, chunk) => ({ chunks: Chunk.append(kept.chunks, chunk), size: kept.size + chunk.length }),
  ).pipe(Effect.map((kept) => Buffer.concat(Chunk.toReadonlyArray(kept.chunks)).subarray(0, max)));

/** Indexes the text of version `versionId` of node `nodeId` if its document is still of it; answers whether it did. */
export const indexVersionText = (workspaceId: string, nodeId: string, versionId: string) =>
  Effect.gen(function* () {
    const index = yield* NodeSearchIndex;
    const document = yield* index.find(workspaceId, nodeId);
    // Moved on to another version (or purged): nothing to read.
    if (document === null || document.versionId !== versionId) return false;
    const version = yield* (yield* VersionsRepository).find(workspaceId, versionId);
    if (version === null || version.status !== "published" || !isTextLike(version)) return false;
    const content = yield* (yield* ObjectStore).read(version.objectKey);
    if (content === null) return false;
    const head = yield* headOf(content, (yield* FilesSettings).searchTextMaxBytes);
    return yield* index.setText(workspaceId, nodeId, versionId, textOf(head, searchContentType(version)));
  }).pipe(withSpan("files.indexVersionText"));

export const searchTextJob = defineJob({
  kind: "files.search_text",
  payload: Schema.Struct({ workspace_id: Schema.String, node_id: Schema.String, version_id: Schema.String }),
  handle: (payload) => Effect.asVoid(indexVersionText(payload.workspace_id, payload.node_id, payload.version_id)),
});
