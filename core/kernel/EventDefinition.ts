/**
 * A domain event type, declared once (docs/conventions.md, Events): its `type` name from the
 * specification, its `schema_version` and the Schema of its `data`. A module gathers its event
 * types into one union (`eventUnion`), which its consumers decode envelopes with, so event data
 * is typed from producer to consumer, and no version is read as another.
 */
import { Effect, Schema } from "effect";
import type { Ids } from "../../ports/Ids.js";
import { EventEnvelope, makeEvent } from "./EventEnvelope.js";

/** An envelope whose `type` and `data` are known. */
export type TypedEnvelope<T extends string, A> = Omit<EventEnvelope, "type" | "data"> & { readonly type: T; readonly data: A };

/** What a command supplies to record one event of a type. */
export interface EventInput<A> {
  readonly tenant_id: string;
  readonly aggregate_id: string;
  readonly aggregate_version: number;
  readonly actor_id: string | null;
  readonly data: A;
}

/** One event type. */
export interface EventDefinition<T extends string, A, I> {
  readonly type: T;
  readonly schemaVersion: number;
  readonly data: Schema.Schema<A, I, never>;
  /** The envelope of this type, data decoded; the members of a module's event union. */
  readonly envelope: Schema.Schema<TypedEnvelope<T, A>, Omit<EventEnvelope, "type" | "data"> & { readonly type: T; readonly data: I }>;
  /** A new envelope of this type (fresh id, current time), its data encoded. */
  readonly make: (input: EventInput<A>) => Effect.Effect<EventEnvelope, never, Ids>;
}

/** Declares an event type. */
export const defineEvent = <const T extends string, A, I>(
  type: T,
  schemaVersion: number,
  data: Schema.Schema<A, I, never>,
): EventDefinition<T, A, I> => {
  const encode = Schema.encodeSync(data);
  // The schema version is part of the type: an envelope of another version is not this member
  // (a consumer never reads a version it does not know as the one it knows; it fails to decode).
  const envelope = Schema.Struct({ ...EventEnvelope.fields, type: Schema.Literal(type), schema_version: Schema.Literal(schemaVersion), data });
  return {
    type,
    schemaVersion,
    data,
    envelope: envelope as unknown as EventDefinition<T, A, I>["envelope"],
    make: (input) => makeEvent({ ...input, type, schema_version: schemaVersion, data: encode(input.data) }),
  };
};

/**
 * Decodes any envelope of a module's event types, in the schema versions declared, into the typed
 * union; fails on other types and on other versions of these types (so a consumer's relay retries
 * it and dead-letters it after its bound, to be replayed once the consumer knows the version).
 */
export const eventUnion = <const D extends ReadonlyArray<{ readonly envelope: Schema.Schema.AnyNoContext }>>(...definitions: D) =>
  Schema.Union(...definitions.map((d) => d.envelope)) as unknown as Schema.Schema<
    { [K in keyof D]: Schema.Schema.Type<D[K]["envelope"]> }[number],
    EventEnvelope
  >;
