/**
 * The attachment scan, run as a durable job (kind `projects.attachment_scan`, keyed by the
 * attachment): reads the quarantined object, asks the Scanner, and records `clean` or `infected`
 * with a conditional update (a repeated delivery changes nothing). A scanner that cannot answer
 * fails the job so the runner retries with backoff; on the last attempt the attachment is marked
 * `scan_failed` explicitly instead of staying quarantined forever. No thumbnails are made.
 */
import { Effect } from "effect";
import type { Job } from "../../ports/Jobs.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { Scanner, type ScannerUnavailable } from "../../ports/Scanner.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import type { AttachmentStatus } from "./AttachmentRecord.js";
import { attachmentScanJobKind } from "./Attachments.js";
import { now } from "./Clock.js";

/** What one scan run concluded (for logs and tests). */
export type ScanOutcome = AttachmentStatus | "skipped";

/**
 * Scans one attachment. `attempt` / `maxAttempts` come from the job: when the scanner is
 * unavailable on the last attempt, the attachment becomes `scan_failed`.
 */
export const scanAttachment = (
  attachmentId: string,
  attempt: { readonly attempt: number; readonly maxAttempts: number },
): Effect.Effect<ScanOutcome, ScannerUnavailable, AttachmentsRepository | ObjectStore | Scanner> =>
  Effect.gen(function* () {
    const repo = yield* AttachmentsRepository;
    const attachment = yield* repo.findAttachment(attachmentId);
    if (attachment === null || attachment.status !== "quarantined") return "skipped" as const;
    const record = (to: AttachmentStatus, scanDetail: string | null) =>
      Effect.flatMap(now, (at) => repo.transition({ id: attachmentId, from: ["quarantined"], to, scanDetail, scannedAt: at })).pipe(
        Effect.map((moved) => (moved ? to : ("skipped" as const))),
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
  }).pipe(Effect.withSpan("Projects.scanAttachment"));

/** The scan as a job handler (structurally the worker's JobHandler): payload `{ attachment_id }`. */
export const attachmentScanJob = {
  kind: attachmentScanJobKind,
  run: (job: Job) =>
    Effect.asVoid(
      scanAttachment(String((job.payload as { attachment_id?: unknown }).attachment_id), {
        // The claim already counted this attempt.
        attempt: job.attempts,
        maxAttempts: job.maxAttempts,
      }),
    ),
};
