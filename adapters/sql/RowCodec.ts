/**
 * The SQL row codec of a record, derived from its one Schema (core/kernel/RecordFields.ts):
 * snake_case columns, times and JSON through the dialect's features, booleans as 0/1 on
 * SQLite, bigint counts (text from pg) as numbers. Reading a row checks what the database
 * cannot already promise the type system: literal unions (statuses) and JSON values are
 * validated, and a row that does not fit is a defect, never a cast.
 */
import { Schema } from "effect";
import { fastIs } from "../../core/kernel/FastGuard.js";
import { generatedFunction, literalKey } from "../../core/kernel/GeneratedCode.js";
import { recordFields, type RecordField, type RecordSchema } from "../../core/kernel/RecordFields.js";
import type { DialectFeatures } from "./DialectFeatures.js";

/** A row as the driver hands it back or takes it. */
export type Row = Readonly<Record<string, unknown>>;

/** Reads and writes one record type on one dialect. */
export interface RowCodec<T> {
  /** A stored row as the record (dies on a row that does not fit). */
  readonly fromRow: (row: Row) => T;
  /** The same, reading each column as `<prefix><column>` (a record selected beside another under aliases). */
  readonly fromPrefixedRow: (row: Row, prefix: string) => T;
  /** The record's column names, in field order. */
  readonly columns: ReadonlyArray<string>;
  /** The record as column values, keyed by column name. */
  readonly toRow: (record: T) => Record<string, unknown>;
}

/** Thrown when a stored row does not fit its record: a schema drift or a corrupt row. */
export class RowDoesNotFit extends Error {
  override readonly name = "RowDoesNotFit";
}

const readerOf = (field: RecordField, f: DialectFeatures): ((value: unknown) => unknown) => {
  const where = `column ${field.name}`;
  let read: (value: unknown) => unknown;
  switch (field.kind) {
    case "time":
      read = (value) => f.timeFromDb(value);
      break;
    case "number":
      read = (value) => {
        const n = typeof value === "number" ? value : Number(value);
        if (!Number.isFinite(n)) throw new RowDoesNotFit(`${where}: not a number`);
        return n;
      };
      break;
    case "boolean":
      read = (value) => value === true || value === 1 || value === "1" || value === "t";
      break;
    case "string":
      read = (value) => (typeof value === "string" ? value : String(value));
      break;
    case "json": {
      const is = fastIs(field.schema as Schema.Schema<unknown, unknown, never>);
      read = (value) => {
        const parsed = f.jsonFromDb(value);
        if (!is(parsed)) throw new RowDoesNotFit(`${where}: stored JSON does not fit the record`);
        return parsed;
      };
      break;
    }
  }
  const literals = field.literals;
  const checked =
    literals === undefined
      ? read
      : (value: unknown) => {
          const v = read(value);
          if (!literals.has(v)) throw new RowDoesNotFit(`${where}: ${String(v)} is not an allowed value`);
          return v;
        };
  return field.nullable ? (value) => (value === null || value === undefined ? null : checked(value)) : (value) => {
    if (value === null || value === undefined) throw new RowDoesNotFit(`${where}: unexpected null`);
    return checked(value);
  };
};

const writerOf = (field: RecordField, f: DialectFeatures): ((value: unknown) => unknown) => {
  let write: (value: unknown) => unknown;
  switch (field.kind) {
    case "time":
      write = (value) => f.timeToDb(value as Date);
      break;
    case "json":
      write = (value) => f.jsonToDb(value);
      break;
    case "boolean":
      write = f.dialect === "sqlite" ? (value) => (value ? 1 : 0) : (value) => value;
      break;
    default:
      write = (value) => value;
  }
  return field.nullable ? (value) => (value === null || value === undefined ? null : write(value)) : write;
};

/**
 * `(row) => ({ key: read0(row["column"]), ... })` for the fields, with `prefix` before each column
 * name: one object literal with constant keys, so every record of a type shares one shape.
 */
const generatedReader = (fields: ReadonlyArray<{ field: RecordField; read: (value: unknown) => unknown }>, prefixed: boolean): ((row: Row, prefix: string) => unknown) => {
  const column = (name: string) => (prefixed ? `row[prefix + ${JSON.stringify(name)}]` : `row[${JSON.stringify(name)}]`);
  const entries = fields.map(({ field }, i) => `${literalKey(field.key)}: read${i}(${column(field.name)})`);
  return generatedFunction("fromRow", ["row", "prefix"], `return { ${entries.join(", ")} };`, fields.map(({ read }, i) => [`read${i}`, read]));
};

/** `(record) => ({ "column": write0(record["key"]), ... })` for the fields: the row in one object literal. */
const generatedWriter = (fields: ReadonlyArray<{ field: RecordField; write: (value: unknown) => unknown }>): ((record: unknown) => Record<string, unknown>) => {
  const entries = fields.map(({ field }, i) => `${literalKey(field.name)}: write${i}(record[${JSON.stringify(field.key)}])`);
  return generatedFunction("toRow", ["record"], `return { ${entries.join(", ")} };`, fields.map(({ write }, i) => [`write${i}`, write]));
};

const compile = <T>(record: RecordSchema, f: DialectFeatures): RowCodec<T> => {
  const fields = recordFields(record).map((field) => ({ field, read: readerOf(field, f), write: writerOf(field, f) }));
  const read = generatedReader(fields, false);
  const readPrefixed = generatedReader(fields, true);
  return {
    fromRow: (row) => read(row, "") as T,
    fromPrefixedRow: (row, prefix) => readPrefixed(row, prefix) as T,
    columns: fields.map(({ field }) => field.name),
    toRow: generatedWriter(fields),
  };
};

const cache = new WeakMap<object, Map<DialectFeatures, RowCodec<unknown>>>();

/** The row codec of `record` on the dialect of `features`, compiled once and cached. */
export const rowCodec = <S extends RecordSchema>(record: S, features: DialectFeatures): RowCodec<Schema.Schema.Type<S>> => {
  let byDialect = cache.get(record);
  if (byDialect === undefined) {
    byDialect = new Map();
    cache.set(record, byDialect);
  }
  let codec = byDialect.get(features);
  if (codec === undefined) {
    codec = compile(record, features);
    byDialect.set(features, codec);
  }
  return codec as RowCodec<Schema.Schema.Type<S>>;
};
