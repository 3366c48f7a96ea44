/**
 * Transactional outbox (architecture.md, Events). Commands append envelopes in their own
 * transaction; the relay delivers them to consumers at least once.
 */
import { Context, Effect } from "effect";
import type { EventEnvelope } from "../core/kernel/EventEnvelope.js";

export interface Outbox {
  /** Appends events; call inside `Transactions.run` so they commit with the domain rows. */
  readonly append: (events: ReadonlyArray<EventEnvelope>) => Effect.Effect<void>;
}
export const Outbox = Context.GenericTag<Outbox>("domainkit/Outbox");

/** One outbox row as the relay sees it. */
export interface OutboxMessage {
  readonly id: string; // the event id
  readonly event: EventEnvelope;
  readonly attempts: number;
  readonly status: "pending" | "delivered" | "dead";
  readonly lastError: string | null;
  readonly nextAttemptAt: Date;
}

/**
 * What an event data scrub reaches: the events of one type (of one schema version when given),
 * and the top-level fields of their `data` it removes (letters, digits and `_` only).
 */
export interface EventDataScrub {
  readonly eventType: string;
  readonly schemaVersion?: number;
  readonly fields: ReadonlyArray<string>;
}

/** The relay's side of the outbox. */
export interface OutboxRelayStore {
  /**
   * Claims up to `limit` pending messages due at `now`, in event order, leasing them to
   * `workerId` until `now + leaseMs`. Two relays never hold the same message at once.
   */
  readonly claimBatch: (opts: {
    readonly workerId: string;
    readonly now: Date;
    readonly limit: number;
    readonly leaseMs: number;
  }) => Effect.Effect<ReadonlyArray<OutboxMessage>>;
  /** Marks a claimed message delivered. */
  readonly markDelivered: (id: string) => Effect.Effect<void>;
  /**
   * Marks several claimed messages delivered in one statement. Optional: without it the relay
   * calls `markDelivered` once per message.
   */
  readonly markDeliveredMany?: (ids: ReadonlyArray<string>) => Effect.Effect<void>;
  /** Records a failed attempt: retried at `retryAt`, or dead-lettered when `retryAt` is null. */
  readonly markFailed: (id: string, failure: { readonly error: string; readonly retryAt: Date | null }) => Effect.Effect<void>;
  /** Dead-lettered messages, oldest first. */
  readonly listDead: (limit: number) => Effect.Effect<ReadonlyArray<OutboxMessage>>;
  /** Puts a dead message back to pending with attempts reset; false if it was not dead. */
  readonly replay: (id: string, now: Date) => Effect.Effect<boolean>;
  /**
   * Retention: deletes up to `limit` delivered messages created before `before`, oldest first,
   * and answers how many. A delivered message is never read again; pending and dead ones stay.
   */
  readonly purgeDelivered: (before: Date, limit: number) => Effect.Effect<number>;
  /**
   * Retention of what an old event version carries: removes the scrub's fields from up to
   * `limit` delivered messages it reaches, created before `before` and still holding one of
   * them, oldest first; answers how many. Pending ones stay whole (they are read again), dead
   * ones unless `scrubDead` reaches them. Optional: without it nothing is scrubbed.
   */
  readonly scrubDelivered?: (scrub: EventDataScrub, before: Date, limit: number) => Effect.Effect<number>;
  /**
   * `scrubDelivered` over dead-lettered messages, for an event whose consumers decode the
   * scrubbed shape when a replay reads it again. Optional: without it dead ones stay whole.
   */
  readonly scrubDead?: (scrub: EventDataScrub, before: Date, limit: number) => Effect.Effect<number>;
}
export const OutboxRelayStore = Context.GenericTag<OutboxRelayStore>("domainkit/OutboxRelayStore");
