/**
 * Per-caller rate limiting (docs/conventions.md, Limits: 429 with Retry-After). Counts live in this
 * process (rate-limiter-flexible's RateLimiterMemory): with several server processes each
 * enforces the budget on its own, which bounds abuse per process without a shared store.
 */
import type { Context, Middleware } from "koa";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { principalScope } from "../../ports/Principal.js";
import { principalOf } from "./Authentication.js";
import { RateLimited } from "./HttpErrors.js";
import { defaultLimits, type Limits } from "./Limits.js";

/** The budget key of a request: the principal's scope, else the client IP. */
export const rateLimitKey = (ctx: Context): string => {
  const principal = principalOf(ctx);
  return principal !== undefined ? principalScope(principal) : `ip:${ctx.ip}`;
};

/**
 * Middleware: spends one point of the caller's budget (`Limits.rateLimitPoints` per
 * `Limits.rateLimitWindowSeconds`) or throws `RateLimited`. Place it after authentication so
 * authenticated callers are counted by principal rather than by a shared IP.
 */
export const rateLimit = (
  limits: Pick<Limits, "rateLimitPoints" | "rateLimitWindowSeconds"> = defaultLimits,
  keyOf: (ctx: Context) => string = rateLimitKey,
): Middleware => {
  const limiter = new RateLimiterMemory({ points: limits.rateLimitPoints, duration: limits.rateLimitWindowSeconds });
  return async (ctx, next) => {
    try {
      await limiter.consume(keyOf(ctx));
    } catch (rejection) {
      // The limiter rejects with a RateLimiterRes when over budget, with an Error otherwise.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw new RateLimited({ retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) });
    }
    await next();
  };
};
