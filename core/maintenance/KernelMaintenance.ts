/**
 * Retention of the kernel's own tables: expired idempotency records (kept at least 24 hours,
 * docs/conventions.md, Idempotency) and realtime channel messages past the recovery window. Runs as a durable,
 * self-rescheduling job: each run schedules the next time slot, and the slot is the job key, so
 * any number of processes scheduling it at start-up still yields one job per slot.
 */
import { Clock, Effect } from "effect";
import { IdempotencyStore } from "../../ports/IdempotencyStore.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { Jobs } from "../../ports/Jobs.js";
import { withSpan } from "../kernel/Span.js";

/** The job kind of kernel maintenance. */
export const kernelMaintenanceKind = "kernel.maintenance";

/** How often maintenance runs and how long realtime messages stay recoverable with `since`. */
export interface MaintenancePolicy {
  readonly intervalMs: number;
  readonly channelRetentionMs: number;
}

/** Hourly; realtime messages recoverable for 24 hours. */
export const defaultMaintenancePolicy: MaintenancePolicy = { intervalMs: 60 * 60_000, channelRetentionMs: 24 * 60 * 60_000 };

/** Schedules the run of the slot after `nowMs` (a no-op when that slot is already scheduled). */
export const scheduleNextMaintenance = (
  nowMs: number,
  policy: MaintenancePolicy = defaultMaintenancePolicy,
): Effect.Effect<void, never, Jobs> =>
  Effect.gen(function* () {
    const jobs = yield* Jobs;
    const slot = Math.floor(nowMs / policy.intervalMs) + 1;
    yield* jobs.schedule({
      kind: kernelMaintenanceKind,
      key: `slot-${slot}`,
      payload: {},
      runAt: new Date(slot * policy.intervalMs),
    });
  });

/** One maintenance run: purge, trim, schedule the next slot. Returns what was removed. */
export const runKernelMaintenance = (
  policy: MaintenancePolicy = defaultMaintenancePolicy,
): Effect.Effect<{ readonly idempotencyRecords: number; readonly channelMessages: number }, never, IdempotencyStore | ChannelLog | Jobs> =>
  Effect.gen(function* () {
    const nowMs = yield* Clock.currentTimeMillis;
    const idempotencyRecords = yield* (yield* IdempotencyStore).purgeExpired(new Date(nowMs));
    const channelMessages = yield* (yield* ChannelLog).trim(new Date(nowMs - policy.channelRetentionMs));
    yield* scheduleNextMaintenance(nowMs, policy);
    return { idempotencyRecords, channelMessages };
  }).pipe(withSpan("Kernel.maintenance"));
