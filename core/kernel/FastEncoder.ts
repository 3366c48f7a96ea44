/**
 * Schema encoding without the parser's bookkeeping, for the shapes responses and events are made
 * of. `Schema.encode` walks a value through ParseResult (an Either per node, issue trees kept
 * for errors that never come): encoding a page of 50 activity events was ~13% of that route's
 * CPU. `fastEncoder(schema)` compiles the schema's AST once into plain functions for structs
 * (with key renames), arrays, literals, string/number/boolean, nullable and literal unions,
 * refinements (their filters still run) and synchronous transformations and declarations (their
 * own encode functions run); any other node is encoded by Schema itself.
 *
 * It answers exactly what `Schema.encodeUnknownEither(schema)` answers for a value the schema
 * accepts, key order included; for a value it is not sure of (anything Schema would reject) it
 * answers `undefined`, and the caller encodes with Schema to get Schema's own answer and error.
 * test/kernel/fast-encoder.test.ts holds it against Schema on every route's response schema.
 */
import { Either, identity, Option, ParseResult, Schema, SchemaAST } from "effect";
import { generatedFunction } from "./GeneratedCode.js";

/** A compiled encoder: the encoded value, or `unsure` when Schema must decide. */
type Encode = (input: unknown) => unknown;

/** Marks "not encoded here": the value may be invalid, or the node is one this file leaves to Schema. */
const unsure: unique symbol = Symbol("unsure");

const options = SchemaAST.defaultParseOption;

/** Schema's own encoder for a node this file does not compile. */
const bySchema = (ast: SchemaAST.AST): Encode => {
  const encode = ParseResult.encodeUnknownEither(Schema.make(ast));
  return (input) => {
    const result = encode(input);
    return Either.isRight(result) ? result.right : unsure;
  };
};

/** The value of a synchronous ParseResult (an Either), or `unsure`. */
const settled = (result: unknown): unknown =>
  Either.isEither(result) && Either.isRight(result) ? result.right : unsure;

const compiled = new WeakMap<SchemaAST.AST, Encode>();

/** The transformation under `Schema.Date` (and `NullOr(Schema.Date)`): every time field of every response. */
const dateFromString = Schema.DateFromString.ast;

const twoDigits = (n: number): string => (n < 10 ? `0${n}` : `${n}`);

/**
 * What `Schema.DateFromString` encodes a Date to (Effect's `formatDate`: `toISOString()`, or
 * `String(date)` for an invalid date), at about 130 ns instead of 320: `toISOString` was a
 * third of the time a page of records took to encode. Years outside 1000–9999, which
 * `toISOString` writes in its own form, are left to it.
 */
const isoText = (date: Date): string => {
  if (Number.isNaN(date.getTime())) return String(date);
  const year = date.getUTCFullYear();
  if (year < 1000 || year > 9999) return date.toISOString();
  const ms = date.getUTCMilliseconds();
  return `${year}-${twoDigits(date.getUTCMonth() + 1)}-${twoDigits(date.getUTCDate())}T${twoDigits(date.getUTCHours())}:${twoDigits(date.getUTCMinutes())}:${twoDigits(date.getUTCSeconds())}.${ms < 10 ? "00" : ms < 100 ? "0" : ""}${ms}Z`;
};

/** `Schema.DateFromString` as Schema encodes it: a Date (valid or not) to its text; anything else is Schema's to refuse. */
const encodeDate: Encode = (input) => (input instanceof Date ? isoText(input) : unsure);

/** Compiles `ast` (memoized; a shared sub-schema compiles once). */
const compile = (ast: SchemaAST.AST): Encode => {
  let encode = compiled.get(ast);
  if (encode === undefined) {
    encode = build(ast);
    compiled.set(ast, encode);
  }
  return encode;
};

const isNullish = (ast: SchemaAST.AST): boolean =>
  (ast._tag === "Literal" && ast.literal === null) || ast._tag === "UndefinedKeyword";

const build = (ast: SchemaAST.AST): Encode => {
  switch (ast._tag) {
    case "StringKeyword":
      return (input) => (typeof input === "string" ? input : unsure);
    case "NumberKeyword":
      return (input) => (typeof input === "number" ? input : unsure);
    case "BooleanKeyword":
      return (input) => (typeof input === "boolean" ? input : unsure);
    case "UndefinedKeyword":
      return (input) => (input === undefined ? input : unsure);
    case "UnknownKeyword":
    case "AnyKeyword":
      return (input) => input;
    case "Literal": {
      const literal = ast.literal;
      return (input) => (input === literal ? input : unsure);
    }
    case "Refinement": {
      // Schema checks the whole type side, then encodes the refined schema; the filter sees a value its `from` accepts.
      const from = compile(ast.from);
      return (input) => {
        const encoded = from(input);
        if (encoded === unsure) return unsure;
        return Option.isNone(ast.filter(input, options, ast)) ? encoded : unsure;
      };
    }
    case "Union":
      return union(ast);
    case "TupleType":
      return array(ast);
    case "TypeLiteral":
      return struct(ast);
    case "Transformation":
      return ast === dateFromString ? encodeDate : transformation(ast);
    case "Declaration": {
      if (ast.typeParameters.length > 0) return bySchema(ast);
      const encode = ast.encodeUnknown();
      return (input) => settled(encode(input, options, ast));
    }
    default:
      return bySchema(ast);
  }
};

/**
 * Unions whose members can never both accept a value: a nullable (`NullOr`, `UndefinedOr`) or
 * literals only. Others are left to Schema, whose search for the member may differ from "the first
 * that accepts".
 */
const union = (ast: SchemaAST.Union): Encode => {
  const members = ast.types;
  if (members.every((member) => member._tag === "Literal")) {
    const literals = new Set(members.map((member) => (member as SchemaAST.Literal).literal));
    return (input) => (literals.has(input as SchemaAST.LiteralValue) ? input : unsure);
  }
  const nullish = members.filter(isNullish);
  const others = members.filter((member) => !isNullish(member));
  if (nullish.length === 0 || others.length !== 1) return bySchema(ast);
  const nullishEncoders = nullish.map(compile);
  const value = compile(others[0]!);
  return (input) => {
    if (input === null || input === undefined) {
      for (const encode of nullishEncoders) {
        const encoded = encode(input);
        if (encoded !== unsure) return encoded;
      }
    }
    // The other member may be nullable itself (`optional(NullOr(X))` nests a union).
    return value(input);
  };
};

/** Arrays (`Schema.Array`): a rest element and nothing else. */
const array = (ast: SchemaAST.TupleType): Encode => {
  if (ast.elements.length > 0 || ast.rest.length !== 1) return bySchema(ast);
  const item = compile(ast.rest[0]!.type);
  return (input) => {
    if (!Array.isArray(input)) return unsure;
    const output = new Array<unknown>(input.length);
    for (let i = 0; i < input.length; i++) {
      const encoded = item(input[i]);
      if (encoded === unsure) return unsure;
      output[i] = encoded;
    }
    return output;
  };
};

/** Structs without index signatures: the declared keys, in declaration order; excess keys are dropped (as Schema does). */
const struct = (ast: SchemaAST.TypeLiteral): Encode => {
  if (ast.indexSignatures.length > 0) return ast.propertySignatures.length === 0 ? stringRecord(ast) : bySchema(ast);
  const plain = plainStructProperties(ast);
  if (plain !== undefined) return straightLineStruct(plain);
  const properties = ast.propertySignatures.map((property) => ({
    name: property.name,
    optional: property.isOptional,
    encode: compile(property.type),
  }));
  return (input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return unsure;
    const source = input as Record<PropertyKey, unknown>;
    const output: Record<PropertyKey, unknown> = {};
    for (const property of properties) {
      if (!Object.prototype.hasOwnProperty.call(source, property.name)) {
        if (property.optional) continue;
        return unsure;
      }
      const encoded = property.encode(source[property.name]);
      if (encoded === unsure) return unsure;
      output[property.name] = encoded;
    }
    return output;
  };
};

/** A struct property with a plain string key, as {@link straightLineStruct} writes it. */
interface StructProperty {
  readonly name: string;
  readonly optional: boolean;
  readonly encode: Encode;
}

const hasOwn = Object.prototype.hasOwnProperty;

/** `name` as a JSON string literal: how generated code writes a key. */
const keyLiteral = (name: string): string => JSON.stringify(name);

/**
 * The generated lines that write `output[name]`: when `present`, `encoder` applied to `value`
 * (unsure ends the whole encoding); when absent, nothing for an optional key, unsure otherwise.
 */
const writeKey = (name: string, optional: boolean, present: string, encoder: string, value: string): ReadonlyArray<string> => [
  `if (${present}) {`,
  `  value = ${encoder}(${value});`,
  "  if (value === unsure) return unsure;",
  `  output[${keyLiteral(name)}] = value;`,
  optional ? "}" : "} else return unsure;",
];

/**
 * Makes the encoder `body` (lines reading `input`, returning a value or `unsure`) over the
 * encoders passed as `encoders` (name to function). Generated once per schema node, from its own
 * keys, each written as a JSON string literal.
 */
const generated = (encoders: ReadonlyArray<readonly [string, Encode]>, body: ReadonlyArray<string>): Encode =>
  generatedFunction<Encode>("encode", ["input"], body.join("\n"), [["unsure", unsure], ["hasOwn", hasOwn], ...encoders]);

const notAnObject = 'if (typeof input !== "object" || input === null || Array.isArray(input)) return unsure;';

/**
 * The struct's encoder as straight-line code made once per struct, doing what the loop in
 * `struct` does: each property is read, encoded and written at a call site of its own with its
 * key as a constant, and without optional keys the result is one object literal. A page of 50
 * records runs the same struct encoder 50 times; with the loop's one call site for every
 * property's encoder and its keys as variables, a record of the reference routes' pages took
 * 15–27% longer to encode (docs/decisions.md). Keys are written as JSON string literals;
 * `__proto__`, which an object literal or an assignment would take as the prototype, stays
 * with the loop.
 */
const straightLineStruct = (properties: ReadonlyArray<StructProperty>): Encode => {
  const lines = [notAnObject];
  if (properties.every((property) => !property.optional)) {
    properties.forEach(({ name }, i) => {
      lines.push(`if (!hasOwn.call(input, ${keyLiteral(name)})) return unsure;`);
      lines.push(`const v${i} = encode${i}(input[${keyLiteral(name)}]);`);
      lines.push(`if (v${i} === unsure) return unsure;`);
    });
    lines.push(`return { ${properties.map(({ name }, i) => `${keyLiteral(name)}: v${i}`).join(", ")} };`);
  } else {
    lines.push("const output = {};", "let value;");
    properties.forEach(({ name, optional }, i) => {
      lines.push(...writeKey(name, optional, `hasOwn.call(input, ${keyLiteral(name)})`, `encode${i}`, `input[${keyLiteral(name)}]`));
    });
    lines.push("return output;");
  }
  return generated(properties.map((property, i) => [`encode${i}`, property.encode] as const), lines);
};

/**
 * Records keyed by plain strings (`Schema.Record({ key: Schema.String, value })`, e.g. a JSON
 * object of event data): every own key, in the input's order, with its value encoded. An input
 * with symbol keys is left to Schema.
 */
const stringRecord = (ast: SchemaAST.TypeLiteral): Encode => {
  const [signature, ...others] = ast.indexSignatures;
  if (signature === undefined || others.length > 0 || signature.parameter._tag !== "StringKeyword") return bySchema(ast);
  const value = compile(signature.type);
  return (input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return unsure;
    if (Object.getOwnPropertySymbols(input).length > 0) return unsure;
    const source = input as Record<string, unknown>;
    const output: Record<string, unknown> = {};
    for (const key of Object.keys(source)) {
      const encoded = value(source[key]);
      if (encoded === unsure) return unsure;
      output[key] = encoded;
    }
    return output;
  };
};

/**
 * The renamed keys when a struct's renames can be applied to a fresh object instead of deleting
 * keys one by one (deleting makes every object a slow dictionary): string keys, each renamed key
 * read once and no new name read by a later rename, and an encoded side that is a plain struct,
 * which reads its keys by name, so the intermediate object's key order cannot show. Otherwise
 * undefined, and the renames run in place, in Schema's order.
 */
const plainRenames = (
  renames: ReadonlyArray<SchemaAST.PropertySignatureTransformation>,
  encodedSide: SchemaAST.AST,
): ReadonlySet<string> | undefined => {
  if (encodedSide._tag !== "TypeLiteral" || encodedSide.indexSignatures.length > 0) return undefined;
  const read = new Set<string>();
  const written = new Set<string>();
  for (const rename of renames) {
    if (typeof rename.to !== "string" || typeof rename.from !== "string") return undefined;
    if (read.has(rename.to) || written.has(rename.to)) return undefined;
    read.add(rename.to);
    written.add(rename.from);
  }
  return read;
};

/** The struct properties of `ast` when it is a struct of plain string keys (see {@link straightLineStruct}), else undefined. */
const plainStructProperties = (ast: SchemaAST.AST): ReadonlyArray<StructProperty> | undefined => {
  if (ast._tag !== "TypeLiteral" || ast.indexSignatures.length > 0) return undefined;
  const properties = ast.propertySignatures;
  if (!properties.every((property) => typeof property.name === "string" && property.name !== "__proto__")) return undefined;
  return properties.map((property) => ({ name: property.name as string, optional: property.isOptional, encode: compile(property.type) }));
};

/**
 * A struct whose keys are only renamed (`fromKey`: every rename's encode is `identity`), encoded
 * in one pass of straight-line code: the type side is checked key by key as `to` checks it, and
 * each encoded key is written from its type-side value as `from` writes it, in `from`'s order.
 * The three steps otherwise make two intermediate objects and an Option per renamed key for
 * every record of a page. Undefined (the three steps then run) when a key of the encoded side
 * could come from two places (a rename and a same-named key of the type side).
 */
const fusedRenames = (
  toAst: SchemaAST.AST,
  fromAst: SchemaAST.AST,
  renames: ReadonlyArray<SchemaAST.PropertySignatureTransformation>,
): Encode | undefined => {
  if (!renames.every((rename) => rename.encode === identity && typeof rename.from === "string" && typeof rename.to === "string")) return undefined;
  const typeSide = plainStructProperties(toAst);
  const encodedSide = plainStructProperties(fromAst);
  if (typeSide === undefined || encodedSide === undefined) return undefined;
  const typeIndex = new Map(typeSide.map((property, j) => [property.name, j]));
  const renamedTo = new Set(renames.map((rename) => rename.to as string));
  const sourceOf = new Map<string, number | undefined>();
  for (const property of encodedSide) {
    const rename = renames.find((r) => r.from === property.name);
    if (rename !== undefined && typeIndex.has(property.name) && !renamedTo.has(property.name)) return undefined;
    // A type-side key that is renamed away is not copied under its own name.
    const name = rename !== undefined ? (rename.to as string) : renamedTo.has(property.name) ? undefined : property.name;
    sourceOf.set(property.name, name === undefined ? undefined : typeIndex.get(name));
  }
  const lines = [notAnObject];
  typeSide.forEach(({ name, optional }, j) => {
    lines.push(`const h${j} = hasOwn.call(input, ${keyLiteral(name)});`);
    lines.push(`let t${j};`);
    lines.push(`if (h${j}) { t${j} = to${j}(input[${keyLiteral(name)}]); if (t${j} === unsure) return unsure; }`);
    if (!optional) lines.push("else return unsure;");
  });
  lines.push("const output = {};", "let value;");
  encodedSide.forEach(({ name, optional }, i) => {
    const j = sourceOf.get(name);
    if (j !== undefined) lines.push(...writeKey(name, optional, `h${j}`, `from${i}`, `t${j}`));
    else if (!optional) lines.push("return unsure;");
  });
  lines.push("return output;");
  return generated(
    [...typeSide.map((property, j) => [`to${j}`, property.encode] as const), ...encodedSide.map((property, i) => [`from${i}`, property.encode] as const)],
    lines,
  );
};

/**
 * A transformation encodes in three steps, as Schema does: check the value against the type side
 * (`to`), transform it back, encode the result with the encoded side (`from`).
 */
const transformation = (ast: SchemaAST.Transformation): Encode => {
  const to = compile(ast.to);
  const from = compile(ast.from);
  const step = ast.transformation;
  switch (step._tag) {
    case "FinalTransformation":
      return (input) => {
        const checked = to(input);
        if (checked === unsure) return unsure;
        const transformed = settled(step.encode(checked, options, ast, input));
        return transformed === unsure ? unsure : from(transformed);
      };
    case "TypeLiteralTransformation": {
      const renames = step.propertySignatureTransformations;
      const renamed = plainRenames(renames, ast.from);
      const fused = renamed === undefined ? undefined : fusedRenames(ast.to, ast.from, renames);
      if (fused !== undefined) return fused;
      if (renamed !== undefined) {
        return (input) => {
          const checked = to(input);
          if (checked === unsure) return unsure;
          const record = checked as Record<string, unknown>;
          const output: Record<string, unknown> = {};
          for (const key of Object.keys(record)) if (!renamed.has(key)) output[key] = record[key];
          for (const rename of renames) {
            const key = rename.to as string;
            const value = rename.encode(Object.prototype.hasOwnProperty.call(record, key) ? Option.some(record[key]) : Option.none());
            if (Option.isSome(value)) output[rename.from as string] = value.value;
          }
          return from(output);
        };
      }
      return (input) => {
        const checked = to(input);
        if (checked === unsure) return unsure;
        // `to` answered a fresh object: rename its keys in place, as Schema does.
        const record = checked as Record<PropertyKey, unknown>;
        for (const rename of renames) {
          const value = rename.encode(Object.prototype.hasOwnProperty.call(record, rename.to) ? Option.some(record[rename.to]) : Option.none());
          delete record[rename.to];
          if (Option.isSome(value)) record[rename.from] = value.value;
        }
        return from(record);
      };
    }
    default:
      return bySchema(ast);
  }
};

/**
 * The encoder of `schema`: the encoded value, or `undefined` when the value must go through
 * `Schema.encode` (which then answers its own result or error). Compiled once per schema.
 */
export const fastEncoder = <A, I>(schema: Schema.Schema<A, I, never>): ((value: unknown) => I | undefined) => {
  const encode = compile(schema.ast);
  return (value) => {
    const encoded = encode(value);
    return encoded === unsure ? undefined : (encoded as I);
  };
};
