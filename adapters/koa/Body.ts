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
export const jsonBody = (limits: Pick<Limits, "jsonBodyBytes"> = defaultLimits): Middleware => {
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
    return next();
  };
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
