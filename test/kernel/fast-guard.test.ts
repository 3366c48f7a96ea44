/**
 * The compiled check (core/kernel/FastGuard.ts) answers exactly what `Schema.is` answers: on the
 * schema of every JSON field of every record the modules declare, for generated valid values and
 * for each of them broken in the ways a stored value can be, and on hand-made schemas for the
 * edges (exact keys, optional keys, unions of structs, refinements, records, arrays).
 */
import { readdirSync } from "node:fs";
import { fileURLToPath } from "node:url";
import { Arbitrary, FastCheck, Schema } from "effect";
import t from "tap";
import { fastIs } from "../../core/kernel/FastGuard.js";
import { recordFields, type RecordField } from "../../core/kernel/RecordFields.js";

/** Every JSON field of every record schema exported by a module's model folder. */
const jsonFields = async (): Promise<Array<{ name: string; field: RecordField }>> => {
  const core = new URL("../../core/", import.meta.url);
  const found: Array<{ name: string; field: RecordField }> = [];
  for (const module of readdirSync(fileURLToPath(core))) {
    let files: string[];
    try {
      files = readdirSync(fileURLToPath(new URL(`${module}/model/`, core))).filter((file) => file.endsWith(".js"));
    } catch {
      continue;
    }
    for (const file of files) {
      const exports = (await import(new URL(`${module}/model/${file}`, core).href)) as Record<string, unknown>;
      for (const [name, value] of Object.entries(exports)) {
        if (!Schema.isSchema(value) || !("fields" in value)) continue;
        let fields: ReadonlyArray<RecordField>;
        try {
          fields = recordFields(value as never);
        } catch {
          continue; // not a record (a request or view struct with optional keys)
        }
        for (const field of fields) if (field.kind === "json") found.push({ name: `${module}/${name}.${field.key}`, field });
      }
    }
  }
  return found;
};

/** Values broken the ways a stored JSON value can be: keys gone or retyped, wrong containers. */
const brokenFrom = (value: unknown): unknown[] => {
  const odd: unknown[] = [null, undefined, 0, -1, 1.5, "", "x", true, [], {}, [null], [{}], { a: 1 }];
  if (Array.isArray(value)) {
    return [...odd, ...value.flatMap((item, i) => brokenFrom(item).map((b) => value.map((v, j) => (i === j ? b : v)))).slice(0, 40), { ...value }];
  }
  if (typeof value === "object" && value !== null) {
    const out: unknown[] = [...odd, [value]];
    for (const key of Object.keys(value)) {
      const { [key]: _gone, ...without } = value as Record<string, unknown>;
      out.push(without);
      for (const b of [null, undefined, 7, "s", false, [], {}]) out.push({ ...value, [key]: b });
    }
    return out;
  }
  return odd;
};

t.test("on every JSON field of every record the compiled check answers what Schema.is answers", async (t) => {
  const fields = await jsonFields();
  t.ok(fields.length >= 40, `${fields.length} JSON fields`);
  let checked = 0;
  for (const { name, field } of fields) {
    const schema = field.schema as Schema.Schema<unknown, unknown, never>;
    const expected = Schema.is(schema);
    const actual = fastIs(schema);
    const disagreements: unknown[] = [];
    for (const value of FastCheck.sample(Arbitrary.make(schema), { numRuns: 30, seed: 7 })) {
      for (const candidate of [value, ...brokenFrom(value)]) {
        checked += 1;
        if (actual(candidate) !== expected(candidate)) disagreements.push(candidate);
      }
    }
    t.same(disagreements, [], name);
  }
  t.ok(checked > 10_000, `${checked} values checked`);
});

const Thumbnail = Schema.Struct({
  status: Schema.Literal("none", "ready"),
  width: Schema.NullOr(Schema.Number.pipe(Schema.int(), Schema.positive())),
  note: Schema.optional(Schema.String),
  tags: Schema.Array(Schema.String),
});
const Event = Schema.Union(
  Schema.Struct({ kind: Schema.Literal("payment"), amount: Schema.Number.pipe(Schema.nonNegative()) }),
  Schema.Struct({ kind: Schema.Literal("refund"), reason: Schema.NullOr(Schema.String) }),
  Schema.Struct({ kind: Schema.Literal("other") }),
);
const Bag = Schema.Record({ key: Schema.String, value: Schema.Unknown });
const Headers = Schema.Record({ key: Schema.String, value: Schema.String });
const MaybeUndefined = Schema.Struct({ a: Schema.UndefinedOr(Schema.String) });

t.test("edge values get Schema.is's answer", async (t) => {
  const symbolKeyed = { [Symbol("s")]: 1, a: "x" };
  const cases: Array<[string, Schema.Schema<any, any, never>, unknown[]]> = [
    [
      "a struct with an optional key, a refined nullable number and an array",
      Thumbnail,
      [
        { status: "ready", width: 3, tags: [] },
        { status: "ready", width: 3, tags: ["a"], note: "n" },
        { status: "ready", width: 3, tags: ["a"], note: undefined },
        { status: "ready", width: 0, tags: [] },
        { status: "ready", width: 2.5, tags: [] },
        { status: "ready", width: null, tags: [1] },
        { status: "gone", width: null, tags: [] },
        { status: "none", width: null, tags: [], extra: 1 },
        Object.assign(Object.create({ inherited: 1 }), { status: "none", width: null, tags: [] }),
        Object.assign(Object.create({ status: "none" }), { width: null, tags: [] }),
      ],
    ],
    [
      "a union of structs told apart by a literal",
      Event,
      [{ kind: "payment", amount: 1 }, { kind: "payment", amount: -1 }, { kind: "refund", reason: null }, { kind: "refund" }, { kind: "other", x: 1 }, { kind: "nope" }, {}],
    ],
    ["a record of unknown values", Bag, [{}, { a: 1 }, [], [1], symbolKeyed, Object.create(null), new Date(0), null, "s"]],
    ["a record of strings", Headers, [{ a: "x" }, { a: 1 }, symbolKeyed, ["x"], Object.create(null)]],
    ["exact: a required key whose type takes undefined must still be present", MaybeUndefined, [{ a: undefined }, {}, { a: "x" }, { a: null }]],
    ["an empty struct takes anything but null and undefined", Schema.Struct({}), [{}, 1, "s", [], null, undefined]],
    ["an array of anything", Schema.Array(Schema.Unknown), [[], [1, "a"], {}, "s", { length: 0 }]],
  ];
  for (const [name, schema, values] of cases) {
    const expected = Schema.is(schema);
    const actual = fastIs(schema);
    t.same(
      values.map((value) => actual(value)),
      values.map((value) => expected(value)),
      name,
    );
  }
});

t.test("a refinement's filter runs on the stored value", async (t) => {
  let seen: unknown;
  const Even = Schema.Number.pipe(Schema.filter((n) => ((seen = n), n % 2 === 0)));
  t.equal(fastIs(Even)(4), true);
  t.equal(seen, 4);
  t.equal(fastIs(Even)(3), false);
  t.equal(fastIs(Even)("4"), false, "the filter never sees a value its base type refuses");
  t.equal(seen, 3);
});
