/**
 * Action budgets: tighter, named rate limits on actions that reach other people (spec, Limits:
 * "invitations, mentions and public shares are rate-limited") or start costly work (workspace
 * exports), on top of the per-caller request
 * limit of RateLimit.ts. A route names its budget and what one request costs (a comment costs
 * one point per mention); every principal has its own count per budget (rate-limiter-flexible).
 * The budgets of actions that reach people or start costly work count in the host's shared store
 * (LimiterStore.ts: Postgres, so they hold across server processes); the per-minute throttles of
 * delivery, spent on hot paths, count in this process. Over budget answers 429 with Retry-After,
 * before anything is written.
 */
import { RateLimiterRes, type RateLimiterAbstract } from "rate-limiter-flexible";
import { RateLimited } from "./HttpErrors.js";
import { memoryLimiters, type LimiterStore } from "./LimiterStore.js";

/** The budgets routes may spend. */
export type ActionBudgetName = "invitations" | "mentions" | "shares" | "exports" | DeliveryBudgetName;

/** The delivery module's independent limits (issue: discovery, order creation, offers and location ingestion). */
export type DeliveryBudgetName = "delivery_discovery" | "delivery_orders" | "delivery_offers" | "delivery_locations";

/** How many points one principal may spend in one window. */
export interface ActionBudgetLimit {
  readonly points: number;
  readonly windowSeconds: number;
}

/** The documented defaults: per principal, per hour. */
export const defaultActionBudgets: Readonly<Record<ActionBudgetName, ActionBudgetLimit>> = {
  invitations: { points: 100, windowSeconds: 3600 },
  mentions: { points: 300, windowSeconds: 3600 },
  shares: { points: 30, windowSeconds: 3600 },
  // A workspace export writes a full copy of what the member sees (conventions: every batch has a bound).
  exports: { points: 10, windowSeconds: 3600 },
  // Per caller (an anonymous discovery request counts against its client IP), per window.
  delivery_discovery: { points: 120, windowSeconds: 60 },
  delivery_orders: { points: 30, windowSeconds: 600 },
  delivery_offers: { points: 120, windowSeconds: 600 },
  delivery_locations: { points: 600, windowSeconds: 600 },
};

/** The budgets counted in the shared store: each bounds what one principal does to others, or costly work. */
export const sharedActionBudgets: ReadonlySet<ActionBudgetName> = new Set<ActionBudgetName>(["invitations", "mentions", "shares", "exports", "delivery_orders"]);

/** Spends `cost` points of budget `name` for `key` or fails RateLimited. */
export type SpendActionBudget = (name: ActionBudgetName, key: string, cost: number) => Promise<void>;

/** One limiter per budget, for one host; `shared` keeps the counts of sharedActionBudgets (this process's memory by default). */
export const makeActionBudgets = (
  overrides: Partial<Record<ActionBudgetName, ActionBudgetLimit>> = {},
  shared: LimiterStore = memoryLimiters,
): SpendActionBudget => {
  const limiters = new Map<ActionBudgetName, RateLimiterAbstract>();
  for (const name of Object.keys(defaultActionBudgets) as ActionBudgetName[]) {
    const limit = overrides[name] ?? defaultActionBudgets[name];
    // A zero or fractional bound would silently disable the protection; fail at startup instead.
    if (!Number.isInteger(limit.points) || limit.points <= 0 || !Number.isInteger(limit.windowSeconds) || limit.windowSeconds <= 0) {
      throw new Error(`action budget ${name} must have positive integer points and windowSeconds`);
    }
    const store = sharedActionBudgets.has(name) ? shared : memoryLimiters;
    limiters.set(name, store({ points: limit.points, duration: limit.windowSeconds, keyPrefix: `budget:${name}` }));
  }
  return async (name, key, cost) => {
    if (cost <= 0) return;
    const limiter = limiters.get(name);
    if (limiter === undefined) throw new Error(`unknown action budget ${name}`);
    try {
      await limiter.consume(key, cost);
    } catch (rejection) {
      // The limiter rejects with a RateLimiterRes when over budget, with an Error otherwise.
      if (!(rejection instanceof RateLimiterRes)) throw rejection;
      throw new RateLimited({
        retryAfterSeconds: Math.max(1, Math.ceil(rejection.msBeforeNext / 1000)),
        detail: `Too many ${name} in a short time; retry later.`,
      });
    }
  };
};
