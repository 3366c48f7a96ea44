/**
 * The search-indexing consumer of the file storage module (spec, background work: "search
 * indexing"; durable, at least once, eventually consistent). It follows the drive's change log:
 * every change record announces itself with a DriveChanged (`seq`, in the change's transaction),
 * and the change brings its node into the index as the node is now — its name, and its current
 * version's type and id. The log is the one complete source: the publish that FileVersionPublished
 * announces and the trash that NodeDeleted announces are change records too (their `change_seq`),
 * and so are the creations, renames, moves, restores and the fallback after a blocked version,
 * which have no event of their own. A document is written only by a newer change than the one it
 * describes, so a late or repeated delivery never brings back an old name; the inbox dedupes by
 * event id. When the document moves to a text-like version, the job that reads its text is queued
 * (keyed by version: SearchText.ts), since reading the store has no place in this transaction.
 * Trash is not indexed state: queries join the active node (ports/files/NodeSearchIndex.ts).
 */
import { Effect, Schema } from "effect";
import { now } from "../kernel/Clock.js";
import type { EventEnvelope } from "../kernel/EventEnvelope.js";
import { searchableText } from "../kernel/SearchTerms.js";
import { ChangesRepository } from "../../ports/files/ChangesRepository.js";
import { NodeSearchIndex } from "../../ports/files/NodeSearchIndex.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { DriveChanged } from "./Events.js";
import { isTextLike, searchContentType, searchTextJob } from "./SearchText.js";

/** The inbox name of the indexing consumer. */
export const searchIndexingConsumerName = "files.search_index";

// The stored (encoded) envelope's shape: a check, not a decode of every relayed event.
const isDriveChanged = Schema.is(Schema.encodedBoundSchema(DriveChanged.envelope));

/** Brings the node of change `seq` of the workspace's log into the index as it is now. */
export const indexChange = (workspaceId: string, seq: number) =>
  Effect.gen(function* () {
    const change = yield* (yield* ChangesRepository).find(workspaceId, seq);
    // Pruned past the window (the node has changed since, or is as it was), or about a reader, not the node.
    if (change === null || change.type === "node.left_view" || change.type === "node.entered_view") return;
    const node = yield* (yield* NodesRepository).find(workspaceId, change.nodeId);
    // Purged, or the root (no name of the user's; every member lists it).
    if (node === null || node.parentId === null) return;
    const version = node.currentVersionId === null ? null : yield* (yield* VersionsRepository).find(workspaceId, node.currentVersionId);
    const written = yield* (yield* NodeSearchIndex).upsert({
      workspaceId,
      nodeId: node.id,
      name: searchableText(node.name),
      contentType: version === null ? null : searchContentType(version),
      versionId: version === null ? null : version.id,
      seq,
    });
    if (written === "text_cleared" && version !== null && isTextLike(version)) {
      yield* searchTextJob.schedule({ workspace_id: workspaceId, node_id: node.id, version_id: version.id }, { runAt: yield* now, key: version.id, maxAttempts: 3 });
    }
  });

/** The consumer (shaped as adapters/worker's Consumer). */
export const searchIndexingConsumer = {
  name: searchIndexingConsumerName,
  handles: (event: EventEnvelope): boolean => event.type === DriveChanged.type,
  handle: (event: EventEnvelope) => {
    const candidate: unknown = event;
    return isDriveChanged(candidate) ? indexChange(candidate.tenant_id, candidate.data.seq) : Effect.void;
  },
};
