/**
 * The HTTP and event shape of a record, derived from its one Schema (docs/conventions.md, HTTP):
 * snake_case keys, times as RFC 3339 UTC strings, everything else as it is. A route declares
 * `wireShape(Task)` as its response and returns the record; the route machinery encodes it.
 * Views that add a field (the caller's role) or hide one (a secret) derive from a struct built
 * with the record's `fields`, never from a hand-written copy.
 */
import { Schema } from "effect";
import { fastEncoder } from "./FastEncoder.js";
import { recordFields, type RecordSchema, type SnakeCase } from "./RecordFields.js";
import { isRetainedBriefly, retainedBriefly } from "./RetainedBriefly.js";

/** A value as it travels: a Date becomes its ISO text. */
export type WireValue<V> = V extends Date ? string : V;

/** A record type as it travels: snake_case keys, times as text. */
export type WireOf<T> = { readonly [K in keyof T as SnakeCase<K & string>]: WireValue<T[K]> };

/** The wire codec of a record: decodes the snake_case shape, encodes a record into it. */
export type WireShape<S extends RecordSchema> = Schema.Schema<Schema.Schema.Type<S>, WireOf<Schema.Schema.Type<S>>>;

const cache = new WeakMap<object, Schema.Schema.Any>();

/** Derives (once per record schema) the wire codec of `record`. */
export const wireShape = <S extends RecordSchema>(record: S): WireShape<S> => {
  const cached = cache.get(record);
  if (cached !== undefined) return cached as WireShape<S>;
  const fields: Record<string, Schema.PropertySignature.All> = {};
  for (const field of recordFields(record)) {
    const time: Schema.Schema.Any | undefined = field.kind === "time" ? (field.nullable ? Schema.NullOr(Schema.Date) : Schema.Date) : undefined;
    // A time travels as text: its codec is new, and keeps the record field's retention mark.
    const codec = time === undefined ? field.schema : isRetainedBriefly(field.schema.ast) ? retainedBriefly(time) : time;
    fields[field.key] = Schema.propertySignature(codec).pipe(Schema.fromKey(field.name));
  }
  const shape = Schema.Struct(fields);
  cache.set(record, shape);
  // The mapped type WireOf describes exactly what the loop above builds.
  return shape as unknown as WireShape<S>;
};

const encoders = new WeakMap<object, (value: unknown) => unknown>();

/** Encodes a record into its wire shape (for event data and other non-route uses); the encoder is built once per record. */
export const toWire = <S extends RecordSchema>(record: S, value: Schema.Schema.Type<S>): WireOf<Schema.Schema.Type<S>> => {
  let encode = encoders.get(record);
  if (encode === undefined) {
    const shape = wireShape(record) as Schema.Schema<unknown, unknown>;
    const fast = fastEncoder(shape);
    const bySchema = Schema.encodeSync(shape);
    // The compiled encoder answers valid records; Schema gives its own answer (and error) otherwise.
    encode = (value) => fast(value) ?? bySchema(value);
    encoders.set(record, encode);
  }
  return encode(value) as WireOf<Schema.Schema.Type<S>>;
};
