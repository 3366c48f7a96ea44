/**
 * Where a rate limit's counts live. In this process (rate-limiter-flexible's RateLimiterMemory) for
 * the per-request limits, whose check is on every request's path; in a store every server process
 * shares (Postgres: adapters/postgres/PostgresLimiters.ts) for the budgets that must hold across
 * processes: actions that reach other people or start costly work, and failed authentications.
 */
import { RateLimiterMemory, type RateLimiterAbstract } from "rate-limiter-flexible";

/** One limiter's bound: `points` per `duration` seconds, its keys prefixed by `keyPrefix`. */
export interface LimiterBound {
  readonly keyPrefix: string;
  readonly points: number;
  readonly duration: number;
}

/** Makes the limiter of one bound. */
export type LimiterStore = (bound: LimiterBound) => RateLimiterAbstract;

/** Counts kept in this process: with several server processes each enforces the bound on its own. */
export const memoryLimiters: LimiterStore = (bound) => new RateLimiterMemory({ ...bound });
