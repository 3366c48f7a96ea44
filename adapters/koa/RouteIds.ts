/**
 * Object ids as routes read them (path parameters, queries, bodies): any 1 to 100 characters, so
 * an id that names nothing answers 404, not 400, whatever a module's ids look like. Modules with
 * branded ids decode into their brands with `idOf`.
 */
import { Schema } from "effect";

/** An object id in a path, query or body. */
export const RouteId = Schema.String.pipe(Schema.minLength(1), Schema.maxLength(100));

/** A route id decoded into its record's id brand (e.g. `idOf(TaskId)`). */
export const idOf = <A extends string>(brand: Schema.Schema<A, string>): Schema.Schema<A, string> => Schema.compose(RouteId, brand);
