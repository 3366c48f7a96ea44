/**
 * Personal data a module keeps only briefly (a customer's drop-off point and address, a courier's
 * position: spec, delivery, "precise courier and customer locations are retained briefly"), marked
 * on the schema of the value where it is declared. What carries the mark must not outlive the
 * module's retention elsewhere either: a route that stores its answer for idempotent replay
 * (kept 24 hours) lists such fields as `unstored`, and `defineRoute` refuses a route that does
 * not (adapters/koa/Route.ts).
 */
import type { Schema, SchemaAST } from "effect";

/** The annotation that marks a schema's values as retained briefly. */
export const RetainedBrieflyId: unique symbol = Symbol.for("domainkit/RetainedBriefly");

/** `schema`, marked as personal data kept only as long as its module's retention. */
export const retainedBriefly = <S extends Schema.Schema.Any>(schema: S): S =>
  // The annotation changes no type: the schema answers what it answered before.
  schema.annotations({ [RetainedBrieflyId]: true }) as S;

/** Whether the schema node itself carries the mark. */
export const isRetainedBriefly = (ast: SchemaAST.AST): boolean => ast.annotations[RetainedBrieflyId] === true;

/**
 * Where values marked retained briefly sit in the encoded (wire) form of `ast`: a field of the
 * top-level object is its wire name, a nested one a dotted path (`dropoff.lat`, `items[].lat`);
 * the whole value is "". Transformations are read on their encoded side, where the wire names are.
 */
export const retainedBrieflyPaths = (ast: SchemaAST.AST): ReadonlyArray<string> => {
  const paths = new Set<string>();
  const open = new Set<SchemaAST.AST>();
  const join = (path: string, name: string): string => (path === "" ? name : `${path}.${name}`);
  const walk = (node: SchemaAST.AST, path: string): void => {
    if (isRetainedBriefly(node)) {
      paths.add(path);
      return;
    }
    switch (node._tag) {
      case "TypeLiteral":
        for (const property of node.propertySignatures) {
          const at = join(path, String(property.name));
          if (property.annotations[RetainedBrieflyId] === true) paths.add(at);
          else walk(property.type, at);
        }
        for (const index of node.indexSignatures) walk(index.type, join(path, "*"));
        return;
      case "Union":
        for (const member of node.types) walk(member, path);
        return;
      case "TupleType":
        for (const element of node.elements) walk(element.type, `${path}[]`);
        for (const rest of node.rest) walk(rest.type, `${path}[]`);
        return;
      case "Refinement":
        walk(node.from, path);
        return;
      case "Transformation":
        walk(node.from, path);
        return;
      case "Suspend":
        // A recursive schema is walked once per path down to its first repetition.
        if (open.has(node)) return;
        open.add(node);
        walk(node.f(), path);
        open.delete(node);
        return;
      default:
        return;
    }
  };
  walk(ast, "");
  return [...paths];
};
