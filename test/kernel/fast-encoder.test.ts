/**
 * The compiled encoder (core/kernel/FastEncoder.ts) answers exactly what Schema answers: on every
 * response schema of every reference route, for generated valid values, the same encoded value
 * with the same key order; for values Schema rejects, no answer (the caller then asks Schema).
 */
import "reflect-metadata";
import { Arbitrary, Either, FastCheck, Schema } from "effect";
import t from "tap";
import { fastEncoder } from "../../core/kernel/FastEncoder.js";
import { loadConfig } from "../../hosts/Config.js";
import { referenceModules } from "../../hosts/modules/index.js";

const routes = referenceModules(loadConfig({ DATA_DIR: "/tmp/domainkit-fast-encoder-test" })).modules.flatMap((module) => module.routes ?? []);
const responseSchemas = routes.flatMap((route) =>
  Object.entries(route.responses).flatMap(([status, schema]) => (schema === null ? [] : [{ name: `${route.operationId} ${status}`, schema }])),
);

t.test("every reference route's response schemas are covered", async (t) => {
  t.ok(routes.length > 150, `${routes.length} routes`);
  t.ok(responseSchemas.length > 100, `${responseSchemas.length} response schemas`);
});

t.test("on valid values the compiled encoder answers what Schema.encode answers, key order included", async (t) => {
  let checked = 0;
  for (const { name, schema } of responseSchemas) {
    const encode = fastEncoder(schema);
    const bySchema = Schema.encodeUnknownEither(schema);
    FastCheck.assert(
      FastCheck.property(Arbitrary.make(schema), (value) => {
        const expected = bySchema(value);
        if (Either.isLeft(expected)) return encode(value) === undefined;
        return JSON.stringify(encode(value)) === JSON.stringify(expected.right);
      }),
      { numRuns: 25, seed: 12 },
    );
    checked += 1;
  }
  t.equal(checked, responseSchemas.length, "each schema held against Schema");
});

const Item = Schema.Struct({
  id: Schema.String.pipe(Schema.minLength(2)),
  status: Schema.Literal("open", "closed"),
  closedAt: Schema.NullOr(Schema.Date).pipe(Schema.propertySignature, Schema.fromKey("closed_at")),
  note: Schema.optional(Schema.String),
});
const Page = Schema.Struct({ data: Schema.Array(Item), next_cursor: Schema.NullOr(Schema.String) });

t.test("a valid page is encoded: keys renamed, dates as ISO text, excess keys dropped, optional keys kept only when present", async (t) => {
  const at = new Date("2026-11-26T10:00:00.000Z");
  const page = {
    data: [
      { id: "a1", status: "closed", closedAt: at, note: "n", extra: "dropped" },
      { id: "b2", status: "open", closedAt: null },
    ],
    next_cursor: null,
  };
  const encoded = fastEncoder(Page)(page);
  t.same(encoded, Schema.encodeSync(Page)(page as never));
  t.equal(JSON.stringify(encoded), JSON.stringify(Schema.encodeSync(Page)(page as never)));
  t.same(encoded, {
    data: [
      { id: "a1", status: "closed", note: "n", closed_at: "2026-11-26T10:00:00.000Z" },
      { id: "b2", status: "open", closed_at: null },
    ],
    next_cursor: null,
  });
});

t.test("values Schema rejects get no answer, so Schema decides", async (t) => {
  const encode = fastEncoder(Page);
  const valid = { id: "a1", status: "open", closedAt: null };
  const cases: Record<string, unknown> = {
    "a failing refinement": { data: [{ ...valid, id: "a" }], next_cursor: null },
    "a literal outside the union": { data: [{ ...valid, status: "gone" }], next_cursor: null },
    "an invalid date": { data: [{ ...valid, closedAt: new Date(Number.NaN) }], next_cursor: null },
    "a missing key": { data: [{ id: "a1", status: "open" }], next_cursor: null },
    "not an array": { data: {}, next_cursor: null },
    "a wrong primitive": { data: [], next_cursor: 7 },
    "not an object": "page",
  };
  for (const [name, value] of Object.entries(cases)) {
    t.ok(Either.isLeft(Schema.encodeUnknownEither(Page)(value)), `Schema rejects ${name}`);
    t.equal(encode(value), undefined, `no answer for ${name}`);
  }
});

t.test("a string-keyed record is encoded key by key in the input's order; symbol keys and invalid values are left to Schema", async (t) => {
  const Data = Schema.Record({ key: Schema.String, value: Schema.NullOr(Schema.Date) });
  const encode = fastEncoder(Data);
  const at = new Date("2026-11-26T10:00:00.000Z");
  const value = { zeta: at, alpha: null, "1": at };
  t.equal(JSON.stringify(encode(value)), JSON.stringify(Schema.encodeSync(Data)(value)), "what Schema answers, key order included");
  t.same(encode(value), { "1": "2026-11-26T10:00:00.000Z", zeta: "2026-11-26T10:00:00.000Z", alpha: null });
  t.equal(encode({ [Symbol("s")]: at, a: at }), undefined, "a symbol key: Schema decides");
  t.equal(encode({ a: "not a date" }), undefined, "an invalid value: no answer");
  t.equal(encode([at]), undefined, "an array: no answer");
});

t.test("renamed keys give Schema's answer on the fresh-object path and on the in-place path (a rename reading another's new name)", async (t) => {
  const Plain = Schema.Struct({
    firstName: Schema.String.pipe(Schema.propertySignature, Schema.fromKey("first_name")),
    lastName: Schema.optional(Schema.String).pipe(Schema.fromKey("last_name")),
    age: Schema.Number,
  });
  for (const value of [{ firstName: "Ada", lastName: "Lovelace", age: 36 }, { firstName: "Ada", age: 36 }, { age: 36, firstName: "Ada", extra: 1 }]) {
    t.equal(JSON.stringify(fastEncoder(Plain)(value)), JSON.stringify(Schema.encodeSync(Plain)(value as never)), `plain renames: ${JSON.stringify(value)}`);
  }
  // a -> b and b -> a: the second rename reads the name the first one wrote, so keys move in place.
  const Swapped = Schema.rename(Schema.Struct({ a: Schema.String, b: Schema.Number }), { a: "b", b: "a" });
  const swapped = { b: "text", a: 1 };
  const expected = Schema.encodeUnknownEither(Swapped)(swapped);
  const encoded = fastEncoder(Swapped)(swapped);
  if (Either.isRight(expected)) t.equal(JSON.stringify(encoded), JSON.stringify(expected.right), "swapped keys as Schema swaps them");
  else t.equal(encoded, undefined, "Schema refuses the swap, and so does the encoder");
});

t.test("times are written as Schema writes them: every year, every millisecond, invalid dates left to Schema or written as Schema writes them", async (t) => {
  const dates = [
    new Date("2026-11-27T08:05:09.007Z"),
    new Date("2026-01-01T00:00:00.050Z"),
    new Date("1999-12-31T23:59:59.500Z"),
    new Date(0),
    new Date(-1),
    new Date(Date.UTC(999, 11, 31, 23, 59, 59, 999)),
    new Date(Date.UTC(1000, 0, 1)),
    new Date(Date.UTC(9999, 11, 31, 23, 59, 59, 999)),
    new Date(Date.UTC(10000, 0, 1)),
    new Date(-8.64e15),
    new Date(8.64e15),
  ];
  for (const schema of [Schema.Date, Schema.NullOr(Schema.Date), Schema.DateFromString]) {
    const encode = fastEncoder(schema as Schema.Schema<unknown, unknown, never>);
    const bySchema = Schema.encodeUnknownEither(schema as Schema.Schema<unknown, unknown, never>);
    for (const date of [...dates, new Date(Number.NaN)]) {
      const expected = bySchema(date);
      t.equal(encode(date), Either.isRight(expected) ? expected.right : undefined, `${String(schema.ast)}: ${String(date.getTime())}`);
    }
    t.equal(encode("2026-11-27T08:05:09.007Z"), undefined, "text is not a Date: Schema decides");
  }
  t.equal(fastEncoder(Schema.DateFromString)(new Date(Number.NaN)), "Invalid Date", "DateFromString writes an invalid date as Schema does");
});

t.test("structs without optional keys are one object literal; with them, keys are written in declaration order only when present", async (t) => {
  const Required = Schema.Struct({ b: Schema.Number, a: Schema.String, "key with space": Schema.Boolean, "0": Schema.Number });
  const Optional = Schema.Struct({ z: Schema.optional(Schema.Number), a: Schema.String, m: Schema.optional(Schema.NullOr(Schema.String)) });
  const cases: Array<[Schema.Schema<any, any, never>, unknown]> = [
    [Required, { a: "x", b: 1, "key with space": true, "0": 2, extra: 3 }],
    [Required, { a: "x", b: 1, "0": 2 }],
    [Optional, { a: "x" }],
    [Optional, { m: null, a: "x", z: 1 }],
    [Optional, { z: undefined, a: "x" }],
    [Optional, { a: 1 }],
  ];
  for (const [schema, value] of cases) {
    const expected = Schema.encodeUnknownEither(schema)(value);
    const encoded = fastEncoder(schema)(value);
    if (Either.isRight(expected)) t.equal(JSON.stringify(encoded), JSON.stringify(expected.right), `as Schema: ${JSON.stringify(value)}`);
    else t.equal(encoded, undefined, `Schema refuses, no answer: ${JSON.stringify(value)}`);
  }
  // A key only inherited is not the value's own: the encoder is not sure and leaves it to Schema.
  const inherited = Object.assign(Object.create({ a: "inherited" }), { b: 1, "key with space": false, "0": 0 });
  t.equal(fastEncoder(Required)(inherited), undefined, "an inherited key: Schema decides");
});

t.test("renamed structs encoded in one pass give Schema's answer: present and absent optional keys, unrenamed keys, excess keys, values Schema refuses", async (t) => {
  const View = Schema.Struct({
    id: Schema.String,
    createdAt: Schema.Date.pipe(Schema.propertySignature, Schema.fromKey("created_at")),
    deletedAt: Schema.NullOr(Schema.Date).pipe(Schema.propertySignature, Schema.fromKey("deleted_at")),
    parentId: Schema.optional(Schema.String).pipe(Schema.fromKey("parent_id")),
    size: Schema.optional(Schema.Number),
  });
  const at = new Date("2026-11-27T08:05:09.007Z");
  const cases: ReadonlyArray<unknown> = [
    { id: "n1", createdAt: at, deletedAt: null },
    { size: 3, parentId: "p", deletedAt: at, createdAt: at, id: "n2", extra: true },
    { id: "n3", createdAt: at, deletedAt: null, parentId: undefined },
    { id: "n4", createdAt: new Date(Number.NaN), deletedAt: null },
    { id: "n5", deletedAt: null },
    { id: 5, createdAt: at, deletedAt: null },
    { id: "n6", createdAt: at, deletedAt: null, parentId: 7 },
    { id: "n7", created_at: at, deleted_at: null },
  ];
  for (const value of cases) {
    const expected = Schema.encodeUnknownEither(View)(value);
    const encoded = fastEncoder(View)(value);
    if (Either.isRight(expected)) t.equal(JSON.stringify(encoded), JSON.stringify(expected.right), `as Schema: ${JSON.stringify(value)}`);
    else t.equal(encoded, undefined, `Schema refuses, no answer: ${JSON.stringify(value)}`);
  }
});
