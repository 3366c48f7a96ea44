/**
 * JSON request bodies, parsed by @koa/bodyparser. The raw text is kept as
 * `ctx.request.rawBody` (webhook signatures are computed over it). Parser failures become the
 * HTTP edge's typed errors: too large -> 413, not JSON -> 400, not a JSON media type -> 415.
 */
import { bodyParser } from "@koa/bodyparser";
import type { Middleware } from "koa";
import { MalformedJson, PayloadTooLarge, UnsupportedMediaType } from "./HttpErrors.js";
import { defaultLimits, type Limits } from "./Limits.js";

// `application/json` and any `application/<x>+json` (merge-patch, problem, ...).
const jsonTypes = ["json", "+json"];

/** Middleware: parses a JSON body into `ctx.request.body` (`{}` when the request has none). */
export const jsonBody = (limits: Pick<Limits, "jsonBodyBytes" | "jsonBodyDepth"> = defaultLimits): Middleware => {
  const parse = bodyParser({
    enableTypes: ["json"],
    // The media type is checked below, so anything reaching the parser is JSON.
    detectJSON: () => true,
    jsonLimit: limits.jsonBodyBytes,
    jsonStrict: true,
    parsedMethods: ["POST", "PUT", "PATCH", "DELETE"],
  });
  return async (ctx, next) => {
    // A host may have parsed the body already; respect its result.
    if (ctx.request.body !== undefined) return next();
    // `is` answers null when the request has no body at all, false when it is not JSON.
    const type = ctx.request.is(jsonTypes);
    if (type === null) {
      ctx.request.body = {};
      return next();
    }
    if (type === false) throw new UnsupportedMediaType({});
    try {
      await parse(ctx, async () => {});
    } catch (error) {
      throw bodyError(error, limits.jsonBodyBytes);
    }
    if (ctx.request.body === undefined) ctx.request.body = {};
    if (nestedDeeperThan(ctx.request.body, limits.jsonBodyDepth)) {
      throw new MalformedJson({
        detail: `The request body nests arrays and objects more than ${limits.jsonBodyDepth} levels deep.`,
        errors: [{ path: "", message: `nested more than ${limits.jsonBodyDepth} levels deep` }],
      });
    }
    return next();
  };
};

/**
 * True when `value` nests arrays and objects more than `depth` levels deep. Walked with a stack,
 * not recursion: every later step that walks a body (the NUL check, the idempotency hash, the
 * schemas) recurses, and a body thousands of levels deep would overflow the call stack there (a 500).
 */
const nestedDeeperThan = (value: unknown, depth: number): boolean => {
  const pending: Array<{ readonly value: unknown; readonly level: number }> = [{ value, level: 1 }];
  for (let next = pending.pop(); next !== undefined; next = pending.pop()) {
    if (typeof next.value !== "object" || next.value === null) continue;
    if (next.level > depth) return true;
    for (const inner of Object.values(next.value)) {
      if (typeof inner === "object" && inner !== null) pending.push({ value: inner, level: next.level + 1 });
    }
  }
  return false;
};

/** Translates a co-body / raw-body failure into the HTTP edge's typed error. */
const bodyError = (error: unknown, maxBytes: number): unknown => {
  const status = (error as { status?: unknown } | null)?.status;
  if (status === 413) return new PayloadTooLarge({ detail: `The request body exceeds ${maxBytes} bytes.` });
  if (status === 415) return new UnsupportedMediaType({ detail: "The request body charset is not supported." });
  // Syntax errors, non-object JSON, truncated or aborted bodies: the client sent bad JSON.
  if (typeof status === "number" && status >= 400 && status < 500) return new MalformedJson({ errors: [{ path: "", message: "the body is not a JSON object or array" }] });
  return error;
};
