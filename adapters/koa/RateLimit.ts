/**
 * Per-caller and per-IP rate limiting (docs/conventions.md, Limits: 429 with Retry-After). Counts live in this
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

/** Spends one point of `key` in `limiter`, or throws `RateLimited` with the wait. */
const spend = async (limiter: RateLimiterMemory, key: string): Promise<void> => {
  try {
    await limiter.consume(key);
  } catch (rejection) {
    // The limiter rejects with a RateLimiterRes when over budget, with an Error otherwise.
    if (!(rejection instanceof RateLimiterRes)) throw rejection;
    throw new RateLimited({ retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)) });
  }
};

/**
 * Middleware: spends one point of the caller's budget (`Limits.rateLimitPoints` per
 * `Limits.rateLimitWindowSeconds`) and one of the client IP's (`Limits.rateLimitIpPoints`), or
 * throws `RateLimited`. Place it after authentication so authenticated callers are counted by
 * principal rather than only by a shared IP; the IP budget still bounds what many credentials
 * used from one address can do together.
 */
export const rateLimit = (
  limits: Pick<Limits, "rateLimitPoints" | "rateLimitIpPoints" | "rateLimitWindowSeconds"> = defaultLimits,
  keyOf: (ctx: Context) => string = rateLimitKey,
): Middleware => {
  const byCaller = new RateLimiterMemory({ points: limits.rateLimitPoints, duration: limits.rateLimitWindowSeconds });
  const byIp = new RateLimiterMemory({ points: limits.rateLimitIpPoints, duration: limits.rateLimitWindowSeconds });
  return async (ctx, next) => {
    await spend(byCaller, keyOf(ctx));
    await spend(byIp, ctx.ip);
    await next();
  };
};
