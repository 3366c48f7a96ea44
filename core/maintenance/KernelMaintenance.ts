/**
 * Retention of the kernel's own tables: expired idempotency records (kept at least 24 hours,
 * docs/conventions.md, Idempotency), realtime channel messages past the recovery window, and the
 * history every write leaves behind: delivered outbox messages, the consumers' inbox records of
 * events no longer held for delivery, and finished jobs, each after `historyRetentionMs` and in
 * bounded batches (so one run never holds the database for long). Runs as a durable,
 * self-rescheduling job: each run schedules the next time slot, and the slot is the job key, so
 * any number of processes scheduling it at start-up still yields one job per slot.
 *
 * A module may declare a shorter history for what an event type (version) carries
 * (`EventHistoryScrub`): after `afterMs` the named `data` fields are removed from its delivered
 * outbox messages (its dead-lettered ones too when the scrub says its consumers read the scrubbed
 * shape) and its channel log messages, in bounded batches as the purges; the rows themselves stay
 * for the history retention (channel offsets stay gapless).
 */
import { Clock, Effect } from "effect";
import { IdempotencyStore } from "../../ports/IdempotencyStore.js";
import { Inbox } from "../../ports/Inbox.js";
import { JobQueue, Jobs } from "../../ports/Jobs.js";
import { OutboxRelayStore, type EventDataScrub } from "../../ports/Outbox.js";
import { ChannelLog } from "../../ports/Realtime.js";
import { withSpan } from "../kernel/Span.js";

/** The job kind of kernel maintenance. */
export const kernelMaintenanceKind = "kernel.maintenance";

/**
 * How often maintenance runs, how long realtime messages stay recoverable with `since`, and how
 * long delivered outbox messages, inbox records and finished jobs are kept.
 */
export interface MaintenancePolicy {
  readonly intervalMs: number;
  readonly channelRetentionMs: number;
  readonly historyRetentionMs: number;
  /** The modules' shorter histories of event data (ModuleDefinition `eventHistoryScrubs`); none when omitted. */
  readonly eventScrubs?: ReadonlyArray<EventHistoryScrub>;
}

/**
 * A module's retention of what one event type (version) carries: `afterMs` after it was written,
 * `fields` leave its `data` in the outbox (once delivered) and in the channel logs.
 */
export interface EventHistoryScrub extends EventDataScrub {
  readonly afterMs: number;
  /**
   * The fields leave dead-lettered outbox messages too: the module's consumers decode the event
   * without them when an operator replays one. Dead ones stay whole when omitted.
   */
  readonly deadLettered?: boolean;
}

/** Hourly; realtime messages recoverable for 24 hours; delivery and job history kept 7 days. */
export const defaultMaintenancePolicy: MaintenancePolicy = {
  intervalMs: 60 * 60_000,
  channelRetentionMs: 24 * 60 * 60_000,
  historyRetentionMs: 7 * 24 * 60 * 60_000,
};

/** Rows one purge statement deletes, and statements per table per run (at most 100,000 rows). */
const purgeBatch = 1_000;
const purgeBatchesPerRun = 100;

/** Runs `purge` batch after batch until one deletes less than a full batch (or the run's bound); answers the total. */
const purgeInBatches = (purge: (limit: number) => Effect.Effect<number>): Effect.Effect<number> => {
  const loop = (total: number, batches: number): Effect.Effect<number> =>
    Effect.flatMap(purge(purgeBatch), (deleted) =>
      deleted < purgeBatch || batches + 1 >= purgeBatchesPerRun ? Effect.succeed(total + deleted) : loop(total + deleted, batches + 1),
    );
  return loop(0, 0);
};

/** Applies each scrub to the outbox and the channel log (stores without the statement are skipped); answers the counts. */
const scrubEventHistory = (
  scrubs: ReadonlyArray<EventHistoryScrub>,
  nowMs: number,
): Effect.Effect<{ readonly outboxMessages: number; readonly channelMessages: number }, never, OutboxRelayStore | ChannelLog> =>
  Effect.gen(function* () {
    const outbox = yield* OutboxRelayStore;
    const log = yield* ChannelLog;
    let outboxMessages = 0;
    let channelMessages = 0;
    for (const scrub of scrubs) {
      const before = new Date(nowMs - scrub.afterMs);
      const { scrubDelivered, scrubDead } = outbox;
      const { scrubBefore } = log;
      if (scrubDelivered !== undefined) outboxMessages += yield* purgeInBatches((limit) => scrubDelivered(scrub, before, limit));
      if (scrub.deadLettered === true && scrubDead !== undefined) outboxMessages += yield* purgeInBatches((limit) => scrubDead(scrub, before, limit));
      if (scrubBefore !== undefined) channelMessages += yield* purgeInBatches((limit) => scrubBefore(scrub, before, limit));
    }
    return { outboxMessages, channelMessages };
  });

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

/** What one maintenance run removed. */
export interface MaintenanceResult {
  readonly idempotencyRecords: number;
  readonly channelMessages: number;
  readonly deliveredMessages: number;
  readonly inboxRecords: number;
  readonly finishedJobs: number;
  /** Messages the event scrubs reached, when the policy declares any. */
  readonly scrubbed?: { readonly outboxMessages: number; readonly channelMessages: number };
}

/** One maintenance run: purge, trim, schedule the next slot. Returns what was removed. */
export const runKernelMaintenance = (
  policy: MaintenancePolicy = defaultMaintenancePolicy,
): Effect.Effect<MaintenanceResult, never, IdempotencyStore | ChannelLog | Jobs | JobQueue | OutboxRelayStore | Inbox> =>
  Effect.gen(function* () {
    const nowMs = yield* Clock.currentTimeMillis;
    const idempotencyRecords = yield* (yield* IdempotencyStore).purgeExpired(new Date(nowMs));
    const channelMessages = yield* (yield* ChannelLog).trim(new Date(nowMs - policy.channelRetentionMs));
    const historyBefore = new Date(nowMs - policy.historyRetentionMs);
    const outbox = yield* OutboxRelayStore;
    const inbox = yield* Inbox;
    const queue = yield* JobQueue;
    // Outbox first: an inbox record goes only once its event is no longer held for delivery.
    const deliveredMessages = yield* purgeInBatches((limit) => outbox.purgeDelivered(historyBefore, limit));
    const inboxRecords = yield* purgeInBatches((limit) => inbox.purgeProcessed(historyBefore, limit));
    const finishedJobs = yield* purgeInBatches((limit) => queue.purgeFinished(historyBefore, limit));
    const scrubs = policy.eventScrubs ?? [];
    const scrubbed = scrubs.length === 0 ? undefined : yield* scrubEventHistory(scrubs, nowMs);
    yield* scheduleNextMaintenance(nowMs, policy);
    return { idempotencyRecords, channelMessages, deliveredMessages, inboxRecords, finishedJobs, ...(scrubbed === undefined ? {} : { scrubbed }) };
  }).pipe(withSpan("Kernel.maintenance"));
