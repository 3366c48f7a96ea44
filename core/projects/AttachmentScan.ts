/**
 * The attachment scan, run as a durable job (kind `projects.attachment_scan`, keyed by the
 * attachment): reads the quarantined object, asks the Scanner, and records `clean` or `infected`
 * with a conditional update (a repeated delivery changes nothing). A scanner that cannot answer
 * fails the job so the runner retries with backoff; on the last attempt the attachment is marked
 * `scan_failed` explicitly instead of staying quarantined forever. A clean or infected verdict
 * records `attachment.scanned` (AttachmentScanned) in the transaction of its status change; a
 * clean one also decides the thumbnail state and queues the thumbnail job there for an image.
 */
import { Effect, Schema } from "effect";
import { defineJob } from "../kernel/JobDefinition.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import type { Ids } from "../../ports/Ids.js";
import type { Jobs } from "../../ports/Jobs.js";
import type { Outbox } from "../../ports/Outbox.js";
import { Scanner, type ScannerUnavailable } from "../../ports/Scanner.js";
import { Transactions } from "../../ports/Transactions.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import { TasksRepository } from "../../ports/projects/TasksRepository.js";
import type { AttachmentStatus } from "./model/Attachment.js";
import { attachmentFactVersions } from "./model/Attachment.js";
import { attachmentScanActor, initialThumbnailState, scheduleThumbnail } from "./AttachmentThumbnails.js";
import { attachmentScanJobKind } from "./Attachments.js";
import { now } from "../kernel/Clock.js";
import { recordTaskFact } from "./TaskFacts.js";
import { withSpan } from "../kernel/Span.js";
import { AttachmentId } from "./model/Ids.js";

/** Services the scan uses. */
export type ScanServices = AttachmentsRepository | ObjectStore | Scanner | Transactions | TasksRepository | Outbox | Ids | Jobs;

/** What one scan run concluded (for logs and tests). */
export type ScanOutcome = AttachmentStatus | "skipped";

/**
 * Scans one attachment. `attempt` / `maxAttempts` come from the job: when the scanner is
 * unavailable on the last attempt, the attachment becomes `scan_failed`.
 */
export const scanAttachment = (
  attachmentId: AttachmentId,
  attempt: { readonly attempt: number; readonly maxAttempts: number },
): Effect.Effect<ScanOutcome, ScannerUnavailable, ScanServices> =>
  Effect.gen(function* () {
    const repo = yield* AttachmentsRepository;
    const attachment = yield* repo.findAttachment(attachmentId);
    if (attachment === null || attachment.status !== "quarantined") return "skipped" as const;
    // The status change, its fact and the thumbnail decision commit together or not at all.
    const record = (to: AttachmentStatus, scanDetail: string | null) =>
      Effect.flatMap(Transactions, (tx) =>
        tx.run(
          Effect.gen(function* () {
            const at = yield* now;
            const thumbnail = to === "clean" ? initialThumbnailState(attachment) : undefined;
            const moved = yield* repo.transition({ id: attachmentId, from: ["quarantined"], to, scanDetail, scannedAt: at, thumbnail });
            if (!moved) return "skipped" as const;
            if (to === "clean" || to === "infected") {
              const task = yield* (yield* TasksRepository).findTask(attachment.taskId);
              if (task !== null) {
                yield* recordTaskFact({
                  task,
                  actorId: attachmentScanActor,
                  kind: "attachment.scanned",
                  aggregate: { id: attachmentId, version: attachmentFactVersions.scanned },
                  data: { attachment_id: attachmentId, outcome: to },
                });
              }
            }
            if (thumbnail?.status === "pending") yield* scheduleThumbnail(attachmentId, at);
            return to;
          }),
        ),
      );
    const content = yield* (yield* ObjectStore).read(attachment.objectKey);
    if (content === null) return yield* record("scan_failed", "the stored object is missing");
    const verdict = yield* (yield* Scanner).scan(content).pipe(
      Effect.catchTag("ScannerUnavailable", (error) =>
        attempt.attempt >= attempt.maxAttempts ? Effect.succeed({ verdict: "failed" as const, detail: error.detail ?? "scanner unavailable" }) : Effect.fail(error),
      ),
    );
    if (verdict.verdict === "failed") return yield* record("scan_failed", verdict.detail);
    return verdict.verdict === "clean" ? yield* record("clean", null) : yield* record("infected", verdict.signature);
  }).pipe(withSpan("Projects.scanAttachment"));

/** The scan as a job: payload `{ attachment_id }`. */
export const attachmentScanJob = defineJob({
  kind: attachmentScanJobKind,
  payload: Schema.Struct({ attachment_id: AttachmentId }),
  handle: (payload, job) =>
    Effect.asVoid(
      scanAttachment(payload.attachment_id, {
        // The claim already counted this attempt.
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
      }),
    ),
});
