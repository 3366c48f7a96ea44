/**
 * Decoding of request parts with effect Schema. A failure is a `ValidationFailed` listing every
 * invalid field as `{ path, message }`: 422 for body content (well-formed but invalid), 400 for
 * path parameters and query strings (the request itself is malformed).
 */
import { Effect, ParseResult, Schema } from "effect";
import { ValidationFailed, type FieldError } from "../../core/kernel/Errors.js";
import { fastEncoder } from "../../core/kernel/FastEncoder.js";

/** Which part of the request is decoded; decides 400 versus 422. */
export type RequestPart = "params" | "query" | "body";

/** An optional field's other branch: "Expected undefined, actual 5" beside the field's real complaint. */
const optionalBranch = /^Expected undefined, actual /;

/**
 * Every issue of a parse error as field errors (`items.0.sku`; "" for the whole value). An
 * optional field of the wrong type fails both of its branches; the `undefined` one says nothing
 * the other does not, so it is left out where the field has another complaint.
 */
export const fieldErrors = (error: ParseResult.ParseError): ReadonlyArray<FieldError> => {
  const issues = ParseResult.ArrayFormatter.formatErrorSync(error).map((issue) => ({
    path: issue.path.map(String).join("."),
    message: issue.message,
  }));
  const explained = new Set(issues.filter((issue) => !optionalBranch.test(issue.message)).map((issue) => issue.path));
  return issues.filter((issue) => !(optionalBranch.test(issue.message) && explained.has(issue.path)));
};

/** The path of the first string in `value` (nested arrays and objects included) that holds U+0000, if any. */
const nulPath = (value: unknown, path: string): string | undefined => {
  if (typeof value === "string") return value.includes("\u0000") ? path : undefined;
  if (typeof value !== "object" || value === null) return undefined;
  for (const [key, inner] of Object.entries(value)) {
    const found = nulPath(inner, path === "" ? key : `${path}.${key}`);
    if (found !== undefined) return found;
  }
  return undefined;
};

/**
 * The refusal of a request part with a NUL character (U+0000) in any of its strings, or
 * undefined: no text of the API may hold one, and Postgres cannot store it (it would fail as a
 * 500 deep in a query). Checked for every part, whether or not the route decodes it.
 */
export const nulRefusal = (part: RequestPart, input: unknown): ValidationFailed | undefined => {
  const path = nulPath(input, "");
  return path === undefined
    ? undefined
    : new ValidationFailed({
        errors: [{ path, message: "must not contain the NUL character (U+0000)" }],
        malformed: part !== "body",
        detail: `The request ${part === "body" ? "body" : part === "params" ? "path" : "query string"} holds a NUL character; see \`errors\`.`,
      });
};

/** Decodes one part of a request, failing with `ValidationFailed` that lists every issue. */
export const decodeRequestPart = <A, I>(
  schema: Schema.Schema<A, I, never>,
  part: RequestPart,
  input: unknown,
): Effect.Effect<A, ValidationFailed> =>
  Schema.decodeUnknown(schema, { errors: "all", onExcessProperty: "ignore" })(input).pipe(
    Effect.mapError(
      (error) =>
        new ValidationFailed({
          errors: fieldErrors(error),
          malformed: part !== "body",
          detail: part === "body" ? "The request body is invalid; see `errors`." : `The request ${part === "params" ? "path" : "query string"} is invalid; see \`errors\`.`,
        }),
    ),
  );

/**
 * Encodes a response body with its schema; a mismatch is a bug in the handler, so it dies. The
 * compiled encoder answers valid bodies; anything else goes through Schema for its verdict.
 */
export const encodeResponseBody = <A, I>(schema: Schema.Schema<A, I, never>, body: unknown): Effect.Effect<I> => {
  const encoded = fastEncoder(schema)(body);
  return encoded !== undefined ? Effect.succeed(encoded) : Schema.encodeUnknown(schema)(body).pipe(Effect.orDie);
};
