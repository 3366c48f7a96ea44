/**
 * What the adapters need to know about a record's fields, read once from its Schema. A module
 * declares each record once, as a `Schema.Struct` of camelCase fields whose types are the
 * core's own (`Schema.DateFromSelf` for times, literal unions for statuses, branded ids); the
 * HTTP shape (Wire.ts) and the SQL row codec (adapters/sql/RowCodec.ts) are derived from it,
 * never written again.
 */
import { Schema, SchemaAST } from "effect";

/** How a field is stored and sent. */
export type FieldKind = "string" | "number" | "boolean" | "time" | "json";

/** One field of a record: its core key, its snake_case name on the wire and in SQL, its kind. */
export interface RecordField {
  readonly key: string;
  readonly name: string;
  readonly kind: FieldKind;
  readonly nullable: boolean;
  /** The allowed values of a literal union (a status), checked when a row is read. */
  readonly literals: ReadonlySet<unknown> | undefined;
  /** The field's own schema, to validate JSON values read back from storage. */
  readonly schema: Schema.Schema.Any;
}

/** `createdAt` → `created_at`, at the type level. */
export type SnakeCase<S extends string> = S extends `${infer C}${infer Rest}`
  ? `${C extends Lowercase<C> ? C : `_${Lowercase<C>}`}${SnakeCase<Rest>}`
  : S;

/** `createdAt` → `created_at`. */
export const snakeCase = (key: string): string => key.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** Any struct schema whose fields are plain schemas (records have no optional fields: use NullOr). */
export type RecordSchema = Schema.Schema.AnyNoContext & { readonly fields: Schema.Struct.Fields };

const isDateAst = (ast: SchemaAST.AST): boolean =>
  SchemaAST.isDeclaration(ast) && SchemaAST.getIdentifierAnnotation(ast).pipe((o) => o._tag === "Some" && /DateFromSelf$/.test(o.value));

interface Classified {
  readonly kind: FieldKind;
  readonly nullable: boolean;
  readonly literals: ReadonlySet<unknown> | undefined;
}

const classify = (ast: SchemaAST.AST, where: string): Classified => {
  if (isDateAst(ast)) return { kind: "time", nullable: false, literals: undefined };
  switch (ast._tag) {
    case "Refinement":
      return classify(ast.from, where);
    case "StringKeyword":
    case "TemplateLiteral":
      return { kind: "string", nullable: false, literals: undefined };
    case "NumberKeyword":
      return { kind: "number", nullable: false, literals: undefined };
    case "BooleanKeyword":
      return { kind: "boolean", nullable: false, literals: undefined };
    case "Literal": {
      const kind: FieldKind = typeof ast.literal === "number" ? "number" : typeof ast.literal === "boolean" ? "boolean" : "string";
      return { kind, nullable: false, literals: new Set([ast.literal]) };
    }
    case "Union": {
      const members = ast.types.filter((t) => !(SchemaAST.isLiteral(t) && t.literal === null));
      const nullable = members.length < ast.types.length;
      if (members.length === 1) return { ...classify(members[0]!, where), nullable };
      if (members.every(SchemaAST.isLiteral)) {
        const kinds = new Set(members.map((m) => typeof m.literal));
        const kind: FieldKind = kinds.size === 1 && kinds.has("number") ? "number" : "string";
        return { kind, nullable, literals: new Set(members.map((m) => m.literal)) };
      }
      return { kind: "json", nullable, literals: undefined };
    }
    case "TupleType":
    case "TypeLiteral":
    case "UnknownKeyword":
    case "AnyKeyword":
    case "Suspend":
      return { kind: "json", nullable: false, literals: undefined };
    case "Transformation":
      throw new Error(`${where}: a record field must be a type schema, not a transformation (use Schema.DateFromSelf, not Schema.Date)`);
    default:
      throw new Error(`${where}: unsupported record field schema (${ast._tag})`);
  }
};

const cache = new WeakMap<object, ReadonlyArray<RecordField>>();

/** The fields of a record schema, classified once and cached. */
export const recordFields = (record: RecordSchema): ReadonlyArray<RecordField> => {
  const cached = cache.get(record);
  if (cached !== undefined) return cached;
  const fields = Object.entries(record.fields).map(([key, schema]): RecordField => {
    if (!Schema.isSchema(schema)) throw new Error(`record field ${key}: optional fields are not supported (use Schema.NullOr)`);
    return { key, name: snakeCase(key), schema, ...classify(schema.ast, `record field ${key}`) };
  });
  cache.set(record, fields);
  return fields;
};
