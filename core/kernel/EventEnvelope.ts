/**
 * The event envelope of docs/conventions.md. Every accepted command appends envelopes to the outbox
 * in its own transaction; consumers dedupe by `id` and drop envelopes whose `aggregate_version`
 * is older than what they hold.
 */
import { Clock, Effect, Schema } from "effect";
import { Ids } from "../../ports/Ids.js";

/** Wire and storage shape of one domain event. */
export const EventEnvelope = Schema.Struct({
  id: Schema.String,
  type: Schema.String,
  schema_version: Schema.Int.pipe(Schema.positive()),
  tenant_id: Schema.String,
  aggregate_id: Schema.String,
  aggregate_version: Schema.Int.pipe(Schema.nonNegative()),
  occurred_at: Schema.String,
  actor_id: Schema.NullOr(Schema.String),
  data: Schema.Unknown,
});
export type EventEnvelope = typeof EventEnvelope.Type;

/** What a command supplies; id and occurred_at come from the Ids port and Effect's Clock. */
export interface NewEvent {
  readonly type: string;
  readonly schema_version?: number;
  readonly tenant_id: string;
  readonly aggregate_id: string;
  readonly aggregate_version: number;
  readonly actor_id: string | null;
  readonly data: unknown;
}

/** Builds an envelope with a fresh time-ordered id and the current time. */
export const makeEvent = (input: NewEvent): Effect.Effect<EventEnvelope, never, Ids> =>
  Effect.gen(function* () {
    const ids = yield* Ids;
    const id = yield* ids.next;
    const millis = yield* Clock.currentTimeMillis;
    return {
      id,
      type: input.type,
      schema_version: input.schema_version ?? 1,
      tenant_id: input.tenant_id,
      aggregate_id: input.aggregate_id,
      aggregate_version: input.aggregate_version,
      occurred_at: new Date(millis).toISOString(),
      actor_id: input.actor_id,
      data: input.data,
    };
  });

/** A consumer's rule: apply `incoming` only if it is newer than the version it holds. */
export const isNewerThan = (incoming: EventEnvelope, heldVersion: number | null): boolean =>
  heldVersion === null || incoming.aggregate_version > heldVersion;
