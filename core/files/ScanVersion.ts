/**
 * The version scan (job `files.version_scan`, keyed by version, bounded attempts). It reads the
 * quarantined object and asks the Scanner. A clean verdict publishes the version: in ONE
 * transaction it becomes published and the file's current version (the previous current one
 * stops being current), the node mirrors its size, type and checksum and advances its version,
 * the change record is appended and FileVersionPublished goes to the outbox (an image's
 * thumbnail job is queued with them). An infected
 * Blocking the current version points the file at its latest published version, or none
 * (CurrentVersionFallback), in the same transaction; blocking one blocks every version stored in
 * the same object (a restored copy), so blocked bytes are never downloadable through a copy.
 * A version older than the file's current one (its scan finished late) is published into the
 * history without becoming current. An infected
 * verdict blocks it; a scanner that keeps failing — or does not answer within
 * FilesSettings.scanTimeoutMs, a failed attempt too — ends `scan_failed` on the last attempt. Every
 * move is a conditional update from `quarantined`, so a repeated delivery changes nothing.
 * The same read detects the version's type from its bytes (TypeDetection.ts: the spec's "type
 * detector" of UploadFinalized), recorded on the version before the verdict is applied.
 */
import { Duration, Effect, Ref, Schema, Stream } from "effect";
import { now } from "../kernel/Clock.js";
import { defineJob } from "../kernel/JobDefinition.js";
import type { Job } from "../../ports/Jobs.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Outbox } from "../../ports/Outbox.js";
import { Scanner, ScannerUnavailable } from "../../ports/Scanner.js";
import { Transactions } from "../../ports/Transactions.js";
import { DriveRepository } from "../../ports/files/DriveRepository.js";
import { FilesSettings } from "../../ports/files/FilesSettings.js";
import { NodesRepository } from "../../ports/files/NodesRepository.js";
import { VersionsRepository } from "../../ports/files/VersionsRepository.js";
import { recordChange } from "./ChangeLog.js";
import { fallBackFromCurrent } from "./CurrentVersionFallback.js";
import { FileVersionPublished } from "./Events.js";
import { thumbnailJob, wantsThumbnail } from "./MakeThumbnail.js";
import { detectContentType, detectionHeadBytes } from "./TypeDetection.js";
import type { FileVersion, VersionStatus } from "./model/FileVersion.js";
import { advance } from "../kernel/Versioning.js";
import { nextVersionStatus, versionStatusesAllowing, type VersionTrigger } from "./VersionStatus.js";
import { withSpan } from "../kernel/Span.js";

/** The actor recorded for the scanner's decisions. */
export const scannerActor = "system:files-scanner";

/** What one scan run concluded. */
export type ScanOutcome = VersionStatus | "skipped";

/**
 * Blocks the other versions stored in `blocked`'s object (a restored version reuses its
 * original's), each falling back from current like the blocked one. Inside its transaction.
 */
const blockSharingObject = (blocked: FileVersion, at: Date, actorId: string) =>
  Effect.gen(function* () {
    const versions = yield* VersionsRepository;
    const sharing = (yield* versions.listSharingObject(blocked.workspaceId, blocked.objectKey)).filter((v) => v.id !== blocked.id && v.status !== "blocked");
    for (const other of sharing) {
      const moved = yield* versions.transition({
        workspaceId: other.workspaceId,
        id: other.id,
        from: versionStatusesAllowing("operator_block"),
        to: "blocked",
        makeCurrent: false,
        scanDetail: `shares the stored object of blocked version ${blocked.number}`,
        at,
      });
      if (moved !== "unmoved") yield* fallBackFromCurrent(other.workspaceId, other.nodeId, other.id, actorId);
    }
  });

/** Moves a version by `trigger`; a clean publish also makes it current with its change record and event. */
export const applyVersionTrigger = (version: FileVersion, trigger: VersionTrigger, detail: string | null, actorId: string) =>
  Effect.gen(function* () {
    const to = yield* nextVersionStatus(version.status, trigger);
    return yield* (yield* Transactions).run(
      Effect.gen(function* () {
        // The drive lock first: the change record's sequence, and no namespace change in between.
        yield* (yield* DriveRepository).lock(version.workspaceId);
        const at = yield* now;
        const publish = to === "published";
        const moved = yield* (yield* VersionsRepository).transition({
          workspaceId: version.workspaceId,
          id: version.id,
          from: versionStatusesAllowing(trigger),
          to,
          makeCurrent: publish,
          scanDetail: detail,
          at,
        });
        if (moved === "unmoved") return "skipped" as const;
        // A current version that stops being published hands over to the latest published one (or none).
        if (!publish) yield* fallBackFromCurrent(version.workspaceId, version.nodeId, version.id, actorId);
        // Blocked bytes are blocked in every version stored in the same object (restored copies).
        if (to === "blocked") yield* blockSharingObject(version, at, actorId);
        // A late scan of an older version publishes it into the history only: the node keeps its
        // newer current version, so no node change, change record or FileVersionPublished.
        if (moved === "made_current") {
          const nodes = yield* NodesRepository;
          const node = yield* nodes.find(version.workspaceId, version.nodeId);
          if (node === null) return yield* Effect.die(new Error(`version ${version.id} has no node`));
          const updated = {
            ...node,
            currentVersionId: version.id,
            sizeBytes: version.sizeBytes,
            contentType: version.contentType,
            sha256: version.sha256,
            version: advance(node.version),
            updatedAt: at,
          };
          const written = yield* nodes.update(updated, node.version);
          if (written !== "written") return yield* Effect.die(new Error(`node ${node.id} changed under the drive lock`));
          const seq = yield* recordChange({ workspaceId: version.workspaceId, nodeId: node.id, type: "version.published", versionId: version.id, actorId });
          const event = yield* FileVersionPublished.make({
            tenant_id: version.workspaceId,
            aggregate_id: node.id,
            aggregate_version: updated.version,
            actor_id: actorId,
            data: {
              version_id: version.id,
              node_id: node.id,
              number: version.number,
              size_bytes: version.sizeBytes,
              sha256: version.sha256,
              content_type: version.contentType,
              change_seq: seq,
            },
          });
          yield* (yield* Outbox).append([event]);
          // An image gets its thumbnail made after commit (keyed by version: once per version).
          if (wantsThumbnail(version)) yield* thumbnailJob.schedule({ workspace_id: version.workspaceId, version_id: version.id }, { runAt: at, key: version.id, maxAttempts: 3 });
        }
        return to;
      }),
    );
  });

/** Scans one version; `attempt` and `maxAttempts` come from the job. */
export const scanVersion = (workspaceId: string, versionId: string, attempt: { readonly attempt: number; readonly maxAttempts: number }) =>
  Effect.gen(function* () {
    const version = yield* (yield* VersionsRepository).find(workspaceId, versionId);
    if (version === null || version.status !== "quarantined") return "skipped" as const;
    const content = yield* (yield* ObjectStore).read(version.objectKey);
    if (content === null) return yield* applyVersionTrigger(version, "scan_gave_up", "the stored object is missing", scannerActor);
    // Type detection rides on the scan's one read: the head of the bytes is kept as they stream by.
    const head = yield* Ref.make(new Uint8Array(0));
    const watched = content.pipe(
      Stream.tap((chunk) =>
        Ref.update(head, (kept) => (kept.length >= detectionHeadBytes ? kept : Buffer.concat([kept, chunk.subarray(0, detectionHeadBytes - kept.length)]))),
      ),
    );
    // A scan that has not answered within the timeout failed (spec: "scan fails or times out"):
    // retried like an unavailable scanner, and the last attempt ends `scan_failed`.
    const timeoutMs = (yield* FilesSettings).scanTimeoutMs;
    const verdict = yield* (yield* Scanner).scan(watched).pipe(
      Effect.timeoutFail({ duration: Duration.millis(timeoutMs), onTimeout: () => new ScannerUnavailable({ detail: `the scan did not answer within ${timeoutMs} ms` }) }),
      Effect.catchTag("ScannerUnavailable", (error) =>
        attempt.attempt >= attempt.maxAttempts ? Effect.succeed({ verdict: "failed" as const, detail: error.detail ?? "scanner unavailable" }) : Effect.fail(error),
      ),
    );
    // Only a head read in full is detected (a scanner that gave up may have stopped early).
    const kept = yield* Ref.get(head);
    if (kept.length >= Math.min(version.sizeBytes, detectionHeadBytes)) yield* (yield* VersionsRepository).recordDetectedType(workspaceId, versionId, detectContentType(kept));
    if (verdict.verdict === "failed") return yield* applyVersionTrigger(version, "scan_gave_up", verdict.detail, scannerActor);
    if (verdict.verdict === "infected") return yield* applyVersionTrigger(version, "scan_infected", verdict.signature, scannerActor);
    return yield* applyVersionTrigger(version, "scan_clean", null, scannerActor);
  }).pipe(withSpan("files.scanVersion"));

export const scanVersionJob = defineJob({
  kind: "files.version_scan",
  payload: Schema.Struct({ workspace_id: Schema.String, version_id: Schema.String }),
  // The claim already counted this attempt.
  handle: (payload, job: Job) => Effect.asVoid(scanVersion(payload.workspace_id, payload.version_id, { attempt: job.attempts, maxAttempts: job.maxAttempts })),
});
