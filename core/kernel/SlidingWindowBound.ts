/**
 * A bound of `max` events within any sliding `window` (the risk limits: declined checkouts of a
 * customer, declined attempts of a payment intent). The caller reads the events since
 * `windowStart`, oldest first and at most `max`; `retryAfterSeconds` says how long until the
 * oldest of them leaves the window, or null while the bound is not reached.
 */
import { Duration } from "effect";

/** At most `max` events within any `window`. */
export interface SlidingWindowBound {
  readonly max: number;
  readonly window: Duration.Duration;
}

/** Where the window that ends at `at` starts. */
export const windowStart = (bound: SlidingWindowBound, at: Date): Date => new Date(at.getTime() - Duration.toMillis(bound.window));

/**
 * Whole seconds (at least 1) until the oldest of `events` (oldest first, at most `bound.max`, all
 * since `windowStart`) leaves the window ending at `at`; null while fewer than `bound.max`.
 */
export const retryAfterSeconds = (bound: SlidingWindowBound, events: ReadonlyArray<Date>, at: Date): number | null => {
  const oldest = events[0];
  if (events.length < bound.max || oldest === undefined) return null;
  return Math.max(1, Math.ceil((oldest.getTime() + Duration.toMillis(bound.window) - at.getTime()) / 1000));
};
