/**
 * Trash retention purge (spec: "Expired upload staging objects ... are hard-deleted after
 * retention"; tasks themselves stay soft-deleted for restore and audit). A durable job,
 * self-rescheduling per time slot like kernel maintenance: each run removes, in bounded
 * batches, the uploads never completed whose grant expired more than `retentionMs` ago. Each
 * one is first marked `purging` (a conditional update, so a racing completion wins or loses
 * cleanly), then its object is deleted, then its row; a crash in between is finished by the
 * next run, which also picks up `purging` rows.
 */
import { Clock, Effect, Schema } from "effect";
import type { Jobs } from "../../ports/Jobs.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import { withSpan } from "../kernel/Span.js";

/** The job kind of the purge; its key is the time slot. */
export const trashPurgeJobKind = "projects.trash_purge";

/** How often the purge runs, how long expired uploads are kept, and how much one run does. */
export interface TrashPurgePolicy {
  readonly intervalMs: number;
  readonly retentionMs: number;
  readonly batchSize: number;
  readonly maxBatches: number;
}

/** Hourly; uploads kept 24 hours past their grant's expiry; at most 10 batches of 100 per run. */
export const defaultTrashPurgePolicy: TrashPurgePolicy = {
  intervalMs: 60 * 60_000,
  retentionMs: 24 * 60 * 60_000,
  batchSize: 100,
  maxBatches: 10,
};

/** Schedules the run of the slot after `nowMs` (a no-op when that slot is already scheduled). */
export const scheduleNextTrashPurge = (nowMs: number, policy: TrashPurgePolicy = defaultTrashPurgePolicy): Effect.Effect<void, never, Jobs> =>
  Effect.gen(function* () {
    const slot = Math.floor(nowMs / policy.intervalMs) + 1;
    yield* trashPurgeJob.schedule({}, { runAt: new Date(slot * policy.intervalMs), key: `slot-${slot}` });
  });

/** One purge run: removes expired upload staging objects and rows, then schedules the next slot. */
export const runTrashPurge = (
  policy: TrashPurgePolicy = defaultTrashPurgePolicy,
): Effect.Effect<{ readonly purged: number }, never, AttachmentsRepository | ObjectStore | Jobs> =>
  Effect.gen(function* () {
    const repo = yield* AttachmentsRepository;
    const store = yield* ObjectStore;
    const nowMs = yield* Clock.currentTimeMillis;
    const cutoff = new Date(nowMs - policy.retentionMs);
    let purged = 0;
    for (let batch = 0; batch < policy.maxBatches; batch++) {
      const expired = yield* repo.expiredUploads(cutoff, policy.batchSize);
      for (const attachment of expired) {
        if (attachment.status === "pending") {
          const claimed = yield* repo.transition({ id: attachment.id, from: ["pending"], to: "purging" });
          if (!claimed) continue; // completed meanwhile: it is no longer staging
        }
        yield* store.remove(attachment.objectKey);
        if (yield* repo.deletePurging(attachment.id)) purged += 1;
      }
      if (expired.length < policy.batchSize) break;
    }
    yield* scheduleNextTrashPurge(nowMs, policy);
    return { purged };
  }).pipe(withSpan("Projects.trashPurge"));

/** The purge as a job (no payload: each run purges what has expired by then). */
export const trashPurgeJob = defineJob({
  kind: trashPurgeJobKind,
  payload: Schema.Struct({}),
  handle: () => Effect.asVoid(runTrashPurge()),
});
