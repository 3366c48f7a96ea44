/** A consumer of outbox events (projection, notification, search indexing, realtime, webhooks). */
import { Effect } from "effect";
import type { EventEnvelope } from "../../core/kernel/EventEnvelope.js";

/**
 * What `handle` may return: nothing, or an effect to run once the consumer's transaction has
 * committed (e.g. a notice to other processes, which must never announce a rolled-back row).
 */
export type AfterCommit = Effect.Effect<void, unknown, never>;

/**
 * One consumer. The relay runs `handle` inside a transaction together with the consumer's inbox
 * record, so each event changes the consumer's state at most once even when redelivered.
 */
export interface Consumer<R = never> {
  /** Stable name: the inbox key, so renaming a consumer makes it see every event again. */
  readonly name: string;
  /** Whether this consumer wants the event at all. */
  readonly handles: (event: EventEnvelope) => boolean;
  /** Applies the event; failing rolls back its transaction and schedules a retry. */
  readonly handle: (event: EventEnvelope) => Effect.Effect<void | AfterCommit, unknown, R>;
  /**
   * Applies several events, in order, in one transaction: the same outcome as `handle` on each in
   * turn, in fewer statements. Optional; the relay uses it for a batch when present, and `handle`
   * when it redoes a failed batch event by event.
   */
  readonly handleBatch?: (events: ReadonlyArray<EventEnvelope>) => Effect.Effect<void | AfterCommit, unknown, R>;
}

/** Builds a consumer (a typed identity, so `R` is inferred from `handle`). */
export const makeConsumer = <R>(consumer: Consumer<R>): Consumer<R> => consumer;

/** Describes any failure value in one line for `last_error` (never a stack, never a secret). */
export const describeFailure = (failure: unknown): string => {
  if (failure instanceof Error) return `${failure.name}: ${failure.message}`.slice(0, 1000);
  if (typeof failure === "object" && failure !== null) {
    const tagged = failure as { _tag?: unknown; code?: unknown; message?: unknown };
    const parts = [tagged._tag, tagged.code, tagged.message].filter((p) => typeof p === "string");
    if (parts.length > 0) return parts.join(": ").slice(0, 1000);
  }
  return String(failure).slice(0, 1000);
};
