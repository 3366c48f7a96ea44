/**
 * The outbox relay (architecture.md, Events and background work): claims pending outbox rows and
 * delivers each event at least once to every consumer that wants it. Each consumer applies the
 * event in its own transaction together with its inbox record, so a redelivery changes nothing
 * and one consumer's outage neither blocks nor repeats the work of the others.
 */
import { Cause, Clock, Effect } from "effect";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";
import { Inbox } from "../../ports/Inbox.js";
import { OutboxRelayStore, type OutboxMessage } from "../../ports/Outbox.js";
import { Transactions } from "../../ports/Transactions.js";
import { defaultBackoff, retryAt, type BackoffPolicy } from "./Backoff.js";
import { describeFailure, type AfterCommit, type Consumer } from "./Consumer.js";
import { withSpan } from "../../core/kernel/Span.js";

/** How one relay pass claims and retries. */
export interface RelayOptions {
  readonly workerId: string;
  readonly batchSize?: number; // default 50
  readonly leaseMs?: number; // default 30 s
  readonly backoff?: BackoffPolicy;
}

/** What one pass did, for logs and tests. */
export interface RelayPassResult {
  readonly claimed: number;
  readonly delivered: number;
  readonly retried: number;
  readonly dead: number;
}

/** The outcome of delivering one event to one consumer. */
type ConsumerOutcome = { readonly ok: true } | { readonly ok: false; readonly error: string };

/** The services every pass needs besides what the consumers need. */
export type RelayServices = OutboxRelayStore | Inbox | Transactions;

const nowDate = Effect.map(Clock.currentTimeMillis, (ms) => new Date(ms));

/** Runs a consumer's after-commit step; its transaction committed, so a failing step is only logged. */
const runAfterCommit = <R>(consumer: Consumer<R>, event: EventEnvelope, step: AfterCommit): Effect.Effect<void> =>
  step.pipe(
    Effect.catchAllCause((cause) =>
      Effect.logWarning("after-commit step failed").pipe(
        Effect.annotateLogs({ consumer: consumer.name, event_id: event.id, error: describeFailure(Cause.squash(cause)) }),
      ),
    ),
  );

/** Delivers one event to one consumer: inbox claim + handle in one transaction, then after-commit work. */
export const deliverTo = <R>(
  consumer: Consumer<R>,
  event: EventEnvelope,
): Effect.Effect<ConsumerOutcome, never, R | Inbox | Transactions> =>
  Effect.gen(function* () {
    const transactions = yield* Transactions;
    const inbox = yield* Inbox;
    const applied = transactions.run(
      Effect.gen(function* () {
        const first = yield* inbox.claim(consumer.name, event.id);
        // Already handled in an earlier, committed delivery: nothing to change.
        if (!first) return undefined;
        const result = yield* consumer.handle(event);
        return Effect.isEffect(result) ? (result as AfterCommit) : undefined;
      }),
    );
    const exit = yield* Effect.exit(applied);
    if (exit._tag === "Failure") {
      const error = `${consumer.name}: ${describeFailure(Cause.squash(exit.cause))}`;
      yield* Effect.logWarning("consumer failed").pipe(
        Effect.annotateLogs({ consumer: consumer.name, event_id: event.id, error }),
      );
      return { ok: false, error } as const;
    }
    if (exit.value !== undefined) {
      yield* runAfterCommit(consumer, event, exit.value);
    }
    return { ok: true } as const;
  });

/** Delivers one claimed message to every consumer that handles it and records the outcome. */
export const deliverMessage = <R>(
  consumers: ReadonlyArray<Consumer<R>>,
  message: OutboxMessage,
  backoff: BackoffPolicy = defaultBackoff,
): Effect.Effect<"delivered" | "retried" | "dead", never, R | RelayServices> =>
  Effect.gen(function* () {
    const store = yield* OutboxRelayStore;
    const errors: string[] = [];
    for (const consumer of consumers) {
      if (!consumer.handles(message.event)) continue;
      const outcome = yield* deliverTo(consumer, message.event);
      if (!outcome.ok) errors.push(outcome.error);
    }
    if (errors.length === 0) {
      yield* store.markDelivered(message.id);
      return "delivered" as const;
    }
    const now = yield* nowDate;
    // The claim counted this attempt (so a crashed relay still moves towards the bound).
    const next = yield* retryAt({ ...backoff, attempts: Math.max(1, message.attempts), now });
    yield* store.markFailed(message.id, { error: errors.join("; ").slice(0, 2000), retryAt: next });
    return next === null ? ("dead" as const) : ("retried" as const);
  });

/**
 * Delivers several events to one consumer in one transaction: one inbox statement claims them
 * all, the consumer applies the fresh ones, one COMMIT; after-commit steps run once it has
 * committed. The batch is optimistic: when any event fails (or the COMMIT does), nothing of the
 * batch stands and it is delivered again one transaction per event ({@link deliverTo}), so the
 * failing event fails alone and the others commit. No savepoint per event: on Postgres each is two
 * more round trips, which made the relay slower than the writes it follows.
 */
export const deliverBatchTo = <R>(
  consumer: Consumer<R>,
  events: ReadonlyArray<EventEnvelope>,
): Effect.Effect<ReadonlyArray<ConsumerOutcome>, never, R | Inbox | Transactions> =>
  Effect.gen(function* () {
    if (events.length < 2) return yield* Effect.forEach(events, (event) => deliverTo(consumer, event));
    const transactions = yield* Transactions;
    const inbox = yield* Inbox;
    const batch = transactions.run(
      Effect.gen(function* () {
        const fresh = inbox.claimMany !== undefined ? yield* inbox.claimMany(consumer.name, events.map((event) => event.id)) : undefined;
        const afterCommit: Array<{ readonly event: EventEnvelope; readonly step: AfterCommit }> = [];
        const unseen: EventEnvelope[] = [];
        for (const event of events) {
          // Already handled in an earlier, committed delivery: nothing to change.
          const first = fresh !== undefined ? fresh.has(event.id) : yield* inbox.claim(consumer.name, event.id);
          if (first) unseen.push(event);
        }
        if (consumer.handleBatch !== undefined && unseen.length > 0) {
          const result = yield* consumer.handleBatch(unseen);
          if (Effect.isEffect(result)) afterCommit.push({ event: unseen[0]!, step: result as AfterCommit });
          return afterCommit;
        }
        for (const event of unseen) {
          const result = yield* consumer.handle(event);
          if (Effect.isEffect(result)) afterCommit.push({ event, step: result as AfterCommit });
        }
        return afterCommit;
      }),
    );
    const exit = yield* Effect.exit(batch);
    if (exit._tag === "Failure") {
      if (Cause.isInterruptedOnly(exit.cause)) return yield* Effect.interrupt;
      // Nothing of the batch committed: deliver one by one, so only the failing event fails.
      return yield* Effect.forEach(events, (event) => deliverTo(consumer, event));
    }
    // The transaction committed, so the work is done even if a notice cannot be sent.
    for (const { event, step } of exit.value) yield* runAfterCommit(consumer, event, step);
    return events.map((): ConsumerOutcome => ({ ok: true }));
  });

/**
 * One relay pass: claims a batch, delivers it to each consumer as one batch (in event order per
 * consumer), marks every fully delivered message in one statement, and schedules a retry (or
 * dead-letters) each message that some consumer failed.
 */
export const relayOnce = <R>(
  consumers: ReadonlyArray<Consumer<R>>,
  options: RelayOptions,
): Effect.Effect<RelayPassResult, never, R | RelayServices> =>
  Effect.gen(function* () {
    const store = yield* OutboxRelayStore;
    const now = yield* nowDate;
    const batch = yield* store.claimBatch({
      workerId: options.workerId,
      now,
      limit: options.batchSize ?? 50,
      leaseMs: options.leaseMs ?? 30_000,
    });
    const counts = { claimed: batch.length, delivered: 0, retried: 0, dead: 0 };
    if (batch.length === 0) return counts;
    const errors = new Map<string, string[]>();
    for (const consumer of consumers) {
      const mine = batch.filter((message) => consumer.handles(message.event));
      if (mine.length === 0) continue;
      const outcomes = yield* deliverBatchTo(
        consumer,
        mine.map((message) => message.event),
      );
      outcomes.forEach((outcome, i) => {
        if (outcome.ok) return;
        const id = mine[i]!.id;
        errors.set(id, [...(errors.get(id) ?? []), outcome.error]);
      });
    }
    const delivered = batch.filter((message) => !errors.has(message.id)).map((message) => message.id);
    if (store.markDeliveredMany !== undefined) yield* store.markDeliveredMany(delivered);
    else for (const id of delivered) yield* store.markDelivered(id);
    counts.delivered = delivered.length;
    const backoff = options.backoff ?? defaultBackoff;
    for (const message of batch) {
      const failures = errors.get(message.id);
      if (failures === undefined) continue;
      const at = yield* nowDate;
      // The claim counted this attempt (so a crashed relay still moves towards the bound).
      const next = yield* retryAt({ ...backoff, attempts: Math.max(1, message.attempts), now: at });
      yield* store.markFailed(message.id, { error: failures.join("; ").slice(0, 2000), retryAt: next });
      counts[next === null ? "dead" : "retried"] += 1;
    }
    return counts;
  }).pipe(withSpan("OutboxRelay.relayOnce", { captureStackTrace: false }));

/** Dead-lettered outbox messages, oldest first, for an operator to inspect. */
export const listDeadMessages = (limit = 100): Effect.Effect<ReadonlyArray<OutboxMessage>, never, OutboxRelayStore> =>
  Effect.flatMap(OutboxRelayStore, (store) => store.listDead(limit));

/** Puts a dead message back in line now, attempts reset; false if it was not dead. */
export const replayMessage = (id: string): Effect.Effect<boolean, never, OutboxRelayStore> =>
  Effect.gen(function* () {
    const store = yield* OutboxRelayStore;
    return yield* store.replay(id, yield* nowDate);
  });
