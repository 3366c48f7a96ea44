/**
 * `Schema.is` without the parser's bookkeeping, for the JSON values stored in records. Reading a
 * row checks each JSON column against its field's schema (adapters/sql/RowCodec.ts); `Schema.is`
 * runs the full parser for that (an Either per node, an output object per struct), ~1.2 µs for an
 * activity event's small `data` object, a tenth of the event's whole read.
 *
 * `fastIs(schema)` compiles the type side of the schema's AST once into plain predicates for
 * structs (exact: a required key must be present), records of string keys, arrays, unions (a
 * value passes when a member accepts it), literals, string/number/boolean/undefined/unknown, and
 * refinements of primitives and literals (their filters run). Any other node (declarations,
 * tuples, suspended schemas, template literals, refined structs, a node carrying parse options) is
 * checked by `Schema.is` itself.
 * It answers exactly what `Schema.is(schema)` answers; test/kernel/fast-guard.test.ts holds it
 * against Schema on every JSON field of every record. The compiled encoder (FastEncoder.ts) also
 * refuses what Schema refuses, but it is no check: its "unsure" does not mean "invalid", it copies
 * every struct it passes, and the nodes it leaves to Schema are encoded without `exact`.
 */
import { Option, Schema, SchemaAST } from "effect";

/** A compiled check. */
type Guard = (input: unknown) => boolean;

// The options `Schema.is` hands to filters.
const isOptions: SchemaAST.ParseOptions = { exact: true };

const always: Guard = () => true;

/** Schema's own check for a node this file does not compile. */
const bySchema = (ast: SchemaAST.AST): Guard => Schema.is(Schema.make(ast)) as Guard;

const compiled = new WeakMap<SchemaAST.AST, Guard>();

/** Compiles `ast` (memoized; a shared sub-schema compiles once). */
const compile = (ast: SchemaAST.AST): Guard => {
  let guard = compiled.get(ast);
  if (guard === undefined) {
    // Parse options and decoding fallbacks change how Schema parses the node: Schema checks it.
    const annotated = Option.isSome(SchemaAST.getParseOptionsAnnotation(ast)) || Option.isSome(SchemaAST.getDecodingFallbackAnnotation(ast));
    guard = annotated ? bySchema(ast) : build(ast);
    compiled.set(ast, guard);
  }
  return guard;
};

/** A node whose parse answers its input unchanged, so a filter over it sees the input itself. */
const passesInputThrough = (ast: SchemaAST.AST): boolean => {
  switch (ast._tag) {
    case "StringKeyword":
    case "NumberKeyword":
    case "BooleanKeyword":
    case "Literal":
      return true;
    case "Refinement":
      return passesInputThrough(ast.from);
    default:
      return false;
  }
};

const build = (ast: SchemaAST.AST): Guard => {
  switch (ast._tag) {
    case "StringKeyword":
      return (input) => typeof input === "string";
    case "NumberKeyword":
      return (input) => typeof input === "number";
    case "BooleanKeyword":
      return (input) => typeof input === "boolean";
    case "UndefinedKeyword":
      return (input) => input === undefined;
    case "UnknownKeyword":
    case "AnyKeyword":
      return always;
    case "Literal": {
      const literal = ast.literal;
      return (input) => input === literal;
    }
    case "Refinement": {
      // Schema runs the filter on what `from` answers: the input itself for primitives.
      if (!passesInputThrough(ast.from)) return bySchema(ast);
      const from = compile(ast.from);
      return (input) => from(input) && Option.isNone(ast.filter(input, isOptions, ast));
    }
    case "Union": {
      const members = ast.types.map(compile);
      return (input) => members.some((member) => member(input));
    }
    case "TupleType":
      return array(ast);
    case "TypeLiteral":
      return struct(ast);
    default:
      return bySchema(ast);
  }
};

/** Arrays (`Schema.Array`): a rest element and nothing else. */
const array = (ast: SchemaAST.TupleType): Guard => {
  if (ast.elements.length > 0 || ast.rest.length !== 1) return bySchema(ast);
  const item = compile(ast.rest[0]!.type);
  if (item === always) return (input) => Array.isArray(input);
  return (input) => {
    if (!Array.isArray(input)) return false;
    for (let i = 0; i < input.length; i++) if (!item(input[i])) return false;
    return true;
  };
};

const hasOwn = Object.prototype.hasOwnProperty;

/**
 * Structs and records of string keys: an object that is not an array; each declared key present
 * (unless optional) with a value its type accepts; every own enumerable string key's value
 * accepted by the index signature's type. Excess keys pass, as with `Schema.is`.
 */
const struct = (ast: SchemaAST.TypeLiteral): Guard => {
  if (ast.propertySignatures.length === 0 && ast.indexSignatures.length === 0) return (input) => input !== null && input !== undefined;
  if (ast.propertySignatures.some((property) => typeof property.name !== "string")) return bySchema(ast);
  if (ast.indexSignatures.some((signature) => signature.parameter._tag !== "StringKeyword")) return bySchema(ast);
  const properties = ast.propertySignatures.map((property) => ({ name: property.name as string, optional: property.isOptional, is: compile(property.type) }));
  const values = ast.indexSignatures.map((signature) => compile(signature.type)).filter((guard) => guard !== always);
  return (input) => {
    if (typeof input !== "object" || input === null || Array.isArray(input)) return false;
    const source = input as Record<string, unknown>;
    for (const property of properties) {
      if (!hasOwn.call(source, property.name)) {
        if (property.optional) continue;
        return false;
      }
      if (!property.is(source[property.name])) return false;
    }
    if (values.length > 0) {
      for (const key of Object.keys(source)) for (const value of values) if (!value(source[key])) return false;
    }
    return true;
  };
};

/** `Schema.is(schema)`, compiled once: see the file's comment. */
export const fastIs = <A, I, R>(schema: Schema.Schema<A, I, R>): ((input: unknown) => input is A) =>
  compile(SchemaAST.typeAST(schema.ast)) as (input: unknown) => input is A;
