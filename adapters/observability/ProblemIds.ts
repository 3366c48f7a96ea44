/**
 * Every problem+json answer carries the request id (`request_id`) and, when spans are exported,
 * the trace id (`trace_id`), so a user's error report leads to the log lines and the trace.
 * Added as the answer leaves (after error handling and idempotent replays), so a replayed
 * problem names the request that received it. Only problem answers are touched; the request id
 * is also in the `X-Request-Id` response header.
 */
import type { Middleware } from "koa";
import { problemContentType } from "../koa/ProblemJson.js";
import { requestIdOf } from "../koa/RequestId.js";

/** Middleware: adds `request_id` (and `trace_id`) to problem+json bodies; mount right after the request id. */
export const problemIds = (): Middleware => async (ctx, next) => {
  await next();
  // Problems are 4xx and 5xx answers: a success is passed without parsing its Content-Type.
  if (ctx.status < 400 || ctx.response.type !== problemContentType) return;
  const body = ctx.body as unknown;
  if (typeof body !== "object" || body === null || Buffer.isBuffer(body) || Array.isArray(body) || typeof (body as { pipe?: unknown }).pipe === "function") return;
  const traceId = typeof ctx.state.traceId === "string" ? ctx.state.traceId : undefined;
  ctx.body = { ...(body as Record<string, unknown>), request_id: requestIdOf(ctx), ...(traceId !== undefined ? { trace_id: traceId } : {}) };
  ctx.type = problemContentType;
};

// The one way to run middlewares as one; exported here too, where hosts first found it.
export { chain } from "../koa/MiddlewareChain.js";
