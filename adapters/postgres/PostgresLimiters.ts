/**
 * Rate-limit counts every server process on one Postgres shares (rate-limiter-flexible's
 * RateLimiterPostgres on the `rate_limits` table of kernel migration 8): one atomic upsert per
 * spent point. Should Postgres fail, a limiter in this process takes over the count (the library's
 * insurance limiter), so an outage neither lets every action through nor refuses them all.
 */
import type pg from "pg";
import { RateLimiterMemory, RateLimiterPostgres, type RateLimiterAbstract } from "rate-limiter-flexible";

/** The table kernel migration 8 creates, in the layout the library reads and writes. */
export const rateLimitTable = "rate_limits";

/** Limiters counting in `pool`'s database (a LimiterStore of adapters/koa/LimiterStore.ts, which this adapter does not import). */
export const postgresLimiters =
  (pool: pg.Pool) =>
  (bound: { readonly keyPrefix: string; readonly points: number; readonly duration: number }): RateLimiterAbstract =>
    new RateLimiterPostgres({
      storeClient: pool,
      storeType: "pool",
      tableName: rateLimitTable,
      // The table is a migration's, not created on the fly.
      tableCreated: true,
      ...bound,
      insuranceLimiter: new RateLimiterMemory({ ...bound }),
    });
