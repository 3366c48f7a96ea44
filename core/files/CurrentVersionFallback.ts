/**
 * When a file's current version stops being published (an operator blocks it), the file points
 * at its latest published version, or at none (spec: "A file node has one current published
 * version"): the node mirrors that version's size, type and checksum, advances its version, and
 * a change record is appended so sync clients refetch it. Call inside the transaction that moved
 * the version, under the drive lock (the change record's sequence).
 */
import { Effect } from "effect";
import { now } from "../kernel/Clock.js";
import { advance } from "../kernel/Versioning.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { recordChange } from "./ChangeLog.js";
import type { FileVersion } from "./model/FileVersion.js";
import type { NodeId, WorkspaceId } from "./model/Ids.js";

/** Falls back from `leftVersionId` if it was the node's current version; answers the new current version (null: none), or "unchanged". */
export const fallBackFromCurrent = (workspaceId: WorkspaceId, nodeId: NodeId, leftVersionId: string, actorId: string) =>
  Effect.gen(function* () {
    const nodes = yield* NodesRepository;
    const node = yield* nodes.find(workspaceId, nodeId);
    if (node === null || node.currentVersionId !== leftVersionId) return "unchanged" as const;
    const fallback: FileVersion | null = yield* (yield* VersionsRepository).makeLatestPublishedCurrent(workspaceId, nodeId);
    const written = yield* nodes.update(
      {
        ...node,
        currentVersionId: fallback?.id ?? null,
        sizeBytes: fallback?.sizeBytes ?? null,
        contentType: fallback?.contentType ?? null,
        sha256: fallback?.sha256 ?? null,
        version: advance(node.version),
        updatedAt: yield* now,
      },
      node.version,
    );
    if (written !== "written") return yield* Effect.die(new Error(`node ${node.id} changed under the drive lock`));
    // The feed's "version.published" record says the node's current version changed; it names the new one (null: none).
    yield* recordChange({ workspaceId, nodeId, type: "version.published", versionId: fallback?.id ?? null, actorId });
    return fallback;
  });
