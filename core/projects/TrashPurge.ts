/**
 * Trash retention purge (spec, Relationships 5: "Expired upload staging objects and sanitized
 * content are hard-deleted after retention"; tasks themselves stay soft-deleted for restore and
 * audit). A durable job, self-rescheduling per time slot like kernel maintenance; each run, in
 * bounded batches:
 * - removes the uploads never completed whose grant expired more than `retentionMs` ago. Each
 *   one is first marked `purging` (a conditional update, so a racing completion wins or loses
 *   cleanly), then its object is deleted, then its row; a crash in between is finished by the
 *   next run, which also picks up `purging` rows;
 * - deletes the object of each workspace export done more than `exportRetentionMs` ago, then
 *   marks the export `expired` (its row and metadata stay; its download answers 410);
 * - deletes the object of each infected or scan_failed attachment whose verdict is more than
 *   `quarantineRetentionMs` old, then records `content_purged_at` on its row (the row and its
 *   status stay: they say what happened; a download already refuses such an attachment).
 * Object first, row second: a crash in between leaves the row as it was, so the next run finds
 * it again, deletes again (an absent object is not an error) and marks it. Nothing is marked
 * while its bytes could remain, and nothing is deleted that a row still offers for download
 * after the run.
 */
import { Clock, Effect, Schema } from "effect";
import type { Jobs } from "../../ports/Jobs.js";
import { defineJob } from "../kernel/JobDefinition.js";
import { ObjectStore } from "../../ports/ObjectStore.js";
import { AttachmentsRepository } from "../../ports/projects/AttachmentsRepository.js";
import { ExportsRepository } from "../../ports/projects/ExportsRepository.js";
import { withSpan } from "../kernel/Span.js";

/** The job kind of the purge; its key is the time slot. */
export const trashPurgeJobKind = "projects.trash_purge";

const day = 24 * 60 * 60_000;

/** How often the purge runs, how long each kind of object is kept, and how much one run does. */
export interface TrashPurgePolicy {
  readonly intervalMs: number;
  /** Expired upload staging: kept this long past the upload grant's expiry. */
  readonly retentionMs: number;
  /** A workspace export's object: kept this long after the export completed. */
  readonly exportRetentionMs: number;
  /** An infected or scan_failed attachment's object: kept this long after its verdict. */
  readonly quarantineRetentionMs: number;
  /** Rows per batch, and batches per run, of each kind. */
  readonly batchSize: number;
  readonly maxBatches: number;
}

/**
 * Hourly; uploads kept 24 hours past their grant's expiry, exports 7 days after completion,
 * quarantined content 30 days after its verdict; at most 10 batches of 100 of each per run.
 */
export const defaultTrashPurgePolicy: TrashPurgePolicy = {
  intervalMs: 60 * 60_000,
  retentionMs: day,
  exportRetentionMs: 7 * day,
  quarantineRetentionMs: 30 * day,
  batchSize: 100,
  maxBatches: 10,
};

/** Schedules the run of the slot after `nowMs` (a no-op when that slot is already scheduled). */
export const scheduleNextTrashPurge = (nowMs: number, policy: TrashPurgePolicy = defaultTrashPurgePolicy): Effect.Effect<void, never, Jobs> =>
  Effect.gen(function* () {
    const slot = Math.floor(nowMs / policy.intervalMs) + 1;
    yield* trashPurgeJob.schedule({}, { runAt: new Date(slot * policy.intervalMs), key: `slot-${slot}` });
  });

/** What one run did: staging uploads removed, exports expired, quarantined objects deleted. */
export interface TrashPurgeResult {
  readonly purged: number;
  readonly expiredExports: number;
  readonly quarantinePurged: number;
}

/**
 * Settles `read`'s rows in batches: each row's object is removed, then the row is marked; the
 * marked rows leave `read`, so the next batch reads the rest. Counts the rows marked.
 */
const settleInBatches = <A>(
  policy: TrashPurgePolicy,
  read: Effect.Effect<ReadonlyArray<A>>,
  settle: (row: A) => Effect.Effect<boolean, never, ObjectStore>,
): Effect.Effect<number, never, ObjectStore> =>
  Effect.gen(function* () {
    let settled = 0;
    for (let batch = 0; batch < policy.maxBatches; batch++) {
      const rows = yield* read;
      for (const row of rows) if (yield* settle(row)) settled += 1;
      if (rows.length < policy.batchSize) break;
    }
    return settled;
  });

/** One purge run: staging uploads, expired exports and quarantined content, then the next slot. */
export const runTrashPurge = (
  policy: TrashPurgePolicy = defaultTrashPurgePolicy,
): Effect.Effect<TrashPurgeResult, never, AttachmentsRepository | ExportsRepository | ObjectStore | Jobs> =>
  Effect.gen(function* () {
    const repo = yield* AttachmentsRepository;
    const exports = yield* ExportsRepository;
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
    const expiredExports = yield* settleInBatches(policy, exports.exportsToExpire(new Date(nowMs - policy.exportRetentionMs), policy.batchSize), (e) =>
      Effect.zipRight(store.remove(e.objectKey), exports.markExpired(e.id)),
    );
    const quarantinePurged = yield* settleInBatches(
      policy,
      repo.quarantinedContent(new Date(nowMs - policy.quarantineRetentionMs), policy.batchSize),
      (a) => Effect.zipRight(store.remove(a.objectKey), repo.markContentPurged(a.id, new Date(nowMs))),
    );
    yield* scheduleNextTrashPurge(nowMs, policy);
    return { purged, expiredExports, quarantinePurged };
  }).pipe(withSpan("Projects.trashPurge"));

/** The purge as a job run with `policy` (no payload: each run purges what has expired by then). */
export const makeTrashPurgeJob = (policy: TrashPurgePolicy = defaultTrashPurgePolicy) =>
  defineJob({
    kind: trashPurgeJobKind,
    payload: Schema.Struct({}),
    handle: () => Effect.asVoid(runTrashPurge(policy)),
  });

/** The purge job with the default policy. */
export const trashPurgeJob = makeTrashPurgeJob();
