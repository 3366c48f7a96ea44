/**
 * Retry timing for the outbox relay and the job runner: exponential backoff with jitter,
 * bounded by a number of attempts after which the work is dead-lettered for an operator.
 */
import { Effect, Random } from "effect";

/** How retries are spaced and when they stop. */
export interface BackoffPolicy {
  /** Delay before the first retry (before jitter). */
  readonly baseMs: number;
  /** Upper bound of any delay. */
  readonly maxMs: number;
  /** Failed attempts after which no retry is scheduled (dead letter). */
  readonly maxAttempts: number;
}

/**
 * The defaults: 1 s doubling up to 5 min, 16 attempts: the 15 retries wait 19 to 39 minutes in
 * all, longer than a payment provider's ambiguity window (15 minutes, ReconciliationSettings), so
 * a job settling a payment outlives a provider outage that long before it is dead-lettered.
 * (With 8 attempts the retries stopped after 1 to 2 minutes.)
 */
export const defaultBackoff: BackoffPolicy = { baseMs: 1_000, maxMs: 5 * 60_000, maxAttempts: 16 };

/**
 * When to try again after `attempts` failed attempts (1 after the first failure), or null once
 * `attempts` reached `maxAttempts`. The delay doubles per attempt up to `maxMs`; "equal jitter"
 * (half fixed, half random) spreads retries of many workers apart while keeping every retry
 * strictly in the future, so a failing consumer never spins.
 */
export const retryAt = (input: {
  readonly attempts: number;
  readonly now: Date;
  readonly baseMs: number;
  readonly maxMs: number;
  readonly maxAttempts: number;
}): Effect.Effect<Date | null> =>
  Effect.gen(function* () {
    if (input.attempts >= input.maxAttempts) return null;
    const exponent = Math.max(0, input.attempts - 1);
    // 2 ** exponent overflows to Infinity long after maxMs caps it; Math.min keeps it finite.
    const ceiling = Math.max(1, Math.min(input.maxMs, input.baseMs * 2 ** exponent));
    const half = Math.ceil(ceiling / 2);
    const jitter = yield* Random.nextIntBetween(0, Math.max(1, ceiling - half + 1));
    return new Date(input.now.getTime() + half + jitter);
  });
