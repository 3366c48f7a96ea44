/**
 * Middlewares run in order as one. koa-compose pays, for every middleware it dispatches, a bound
 * `next` and a `Promise.resolve` around the call; a chain folded once calls each middleware with a
 * `next` made when the chain was built. The host's envelope (request id, metrics, access log, error
 * handling, routing fallback) is one chain, so an empty route pays for its middleware, not for the
 * dispatch between them.
 */
import type { Middleware } from "koa";

/** Runs `middlewares` in order as one middleware (undefined entries are left out). */
export const chain = (...middlewares: ReadonlyArray<Middleware | undefined>): Middleware => {
  const present = middlewares.filter((m): m is Middleware => m !== undefined);
  // Folded from the last: each middleware's `next` calls the one after it (no promise per step).
  return present.reduceRight<Middleware>((rest, middleware) => (ctx, next) => middleware(ctx, () => rest(ctx, next)), (_ctx, next) => next());
};
