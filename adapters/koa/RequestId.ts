/**
 * Request ids: every request carries one in `X-Request-Id`, in and out, and every log line of
 * that request names it. A caller's id is kept when it is a plain token; otherwise (or when
 * absent) the server makes a UUID v7.
 */
import type { Context, Middleware } from "koa";
import { v7 as uuidv7 } from "uuid";

/** The header that carries the request id both ways. */
export const requestIdHeader = "X-Request-Id";

// A caller-supplied id goes into logs verbatim, so only a short plain token is accepted.
const acceptable = /^[A-Za-z0-9._:-]{1,128}$/;

/** Middleware: sets `ctx.state.requestId` and the `X-Request-Id` response header. */
export const requestId = (): Middleware => (ctx, next) => {
  const incoming = ctx.get(requestIdHeader);
  const id = acceptable.test(incoming) ? incoming : uuidv7();
  ctx.state.requestId = id;
  ctx.set(requestIdHeader, id);
  return next();
};

/** The id of the current request ("-" outside the request-id middleware). */
export const requestIdOf = (ctx: Context): string =>
  typeof ctx.state.requestId === "string" ? ctx.state.requestId : "-";
