/**
 * Text and ids as the commerce routes read them: any string without a NUL character (U+0000),
 * which Postgres text cannot hold. A NUL is invalid input (422 in a body, 400 in a path or query),
 * never a database error. The one place every commerce request schema takes its strings from.
 */
import { Schema } from "effect";
import { idOf } from "../RouteIds.js";

const withoutNul = <A extends string, I>(schema: Schema.Schema<A, I>): Schema.Schema<A, I> =>
  schema.pipe(Schema.filter((s) => !s.includes("\u0000") || "must not contain a NUL character"));

/** A string without a NUL character. */
export const Text = withoutNul(Schema.String);

/** A route id (path, query or body) decoded into its brand, without a NUL character. */
export const textIdOf = <A extends string>(brand: Schema.Schema<A, string>): Schema.Schema<A, string> => withoutNul(idOf(brand));
