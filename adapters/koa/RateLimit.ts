/**
 * Per-caller and per-IP rate limiting, and a per-IP bound on failed authentications
 * (docs/conventions.md, Limits: 429 with Retry-After). The request limits count in this process
 * (rate-limiter-flexible's RateLimiterMemory; with several server processes each enforces them on
 * its own, and no request pays a round trip for them). Failed authentications count in the host's
 * shared store (LimiterStore.ts), so guessing credentials across several processes meets one budget.
 */
import type { Context, Middleware } from "koa";
import { RateLimiterMemory, RateLimiterRes } from "rate-limiter-flexible";
import { Unauthorized } from "../../core/kernel/Errors.js";
import { principalScope } from "../../ports/Principal.js";
import { principalOf } from "./Authentication.js";
import { RateLimited } from "./HttpErrors.js";
import { memoryLimiters, type LimiterStore } from "./LimiterStore.js";
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

/** Wraps an authentication middleware so its failures count against the client IP. */
export type AuthenticationGuard = (authentication: Middleware) => Middleware;

/**
 * Failed authentications per client IP (`Limits.failedAuthenticationPoints` per
 * `Limits.failedAuthenticationWindowSeconds`), one budget for HTTP and the realtime upgrade: each
 * refused credential spends a point; with none left, the IP's credentials are refused with 429
 * before they are checked, so guessing credentials costs the guesser, not the server. A request
 * that authenticates spends nothing here (the request limit above counts it).
 */
export interface FailedAuthentications {
  /** Seconds `ip` must wait before presenting a credential again, or null when it may. */
  readonly retryAfterSeconds: (ip: string) => number | null;
  /** Spends a point of `ip`'s budget for one refused credential. */
  readonly record: (ip: string) => Promise<void>;
  /** The authentication middleware with both of the above around it. */
  readonly guard: AuthenticationGuard;
}

/**
 * A failed-authentication budget counted in `store` (this process's memory by default). Each
 * process blocks an IP once a failure it records finds the shared count spent; another process
 * blocks it at the first failure it records after that.
 */
export const failedAuthentications = (
  limits: Pick<Limits, "failedAuthenticationPoints" | "failedAuthenticationWindowSeconds"> = defaultLimits,
  store: LimiterStore = memoryLimiters,
): FailedAuthentications => {
  const failures = store({ keyPrefix: "failed-authentications", points: limits.failedAuthenticationPoints, duration: limits.failedAuthenticationWindowSeconds });
  // The IPs with no point left and when their window ends, so the check every authenticated
  // request makes is a map lookup in this process, not a call into the store.
  const blockedUntil = new Map<string, number>();
  const retryAfterSeconds = (ip: string): number | null => {
    const until = blockedUntil.get(ip);
    if (until === undefined) return null;
    const waitMs = until - Date.now();
    if (waitMs > 0) return Math.max(1, Math.ceil(waitMs / 1000));
    blockedUntil.delete(ip);
    return null;
  };
  const record = async (ip: string): Promise<void> => {
    const spent = await failures.penalty(ip).catch(() => null);
    if (spent !== null && spent.remainingPoints <= 0) blockedUntil.set(ip, Date.now() + spent.msBeforeNext);
  };
  const guard: AuthenticationGuard = (authentication) => async (ctx, next) => {
    const wait = retryAfterSeconds(ctx.ip);
    if (wait !== null) {
      throw new RateLimited({ retryAfterSeconds: wait, detail: "Too many failed authentications from this address; retry after the time given in Retry-After." });
    }
    let authenticated = false;
    try {
      await authentication(ctx, () => {
        authenticated = true;
        return next();
      });
    } catch (error) {
      // Only the authentication's own refusal of a presented credential counts, not a 401 from the
      // work behind it, nor a request that carried none (a signed-out client is no guess; the
      // per-IP request budget bounds those).
      if (!authenticated && error instanceof Unauthorized && error.reason !== "missing") await record(ctx.ip);
      throw error;
    }
  };
  return { retryAfterSeconds, record, guard };
};
