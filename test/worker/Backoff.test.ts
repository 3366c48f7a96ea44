/** Backoff rules: retries are spaced exponentially with jitter, always in the future, and stop at the bound. */
import t from "tap";
import fc from "fast-check";
import { Effect, Random } from "effect";
import { defaultBackoff, retryAt } from "../../adapters/worker/Backoff.js";
import { defaultReconciliationSettings } from "../../ports/payments/ReconciliationSettings.js";

const now = new Date("2026-01-01T00:00:00.000Z");
const run = (attempts: number, seed: number, policy = { baseMs: 1000, maxMs: 60_000, maxAttempts: 5 }) =>
  Effect.runSync(retryAt({ ...policy, attempts, now }).pipe(Effect.withRandom(Random.make(seed))));

t.test("no retry once the attempts reach the bound (dead letter)", async (t) => {
  t.equal(run(5, 1), null);
  t.equal(run(9, 1), null);
  t.not(run(4, 1), null);
});

t.test("every retry is strictly in the future, between half and all of the capped exponential delay", async (t) => {
  fc.assert(
    fc.property(
      fc.integer({ min: 1, max: 40 }),
      fc.integer(),
      fc.integer({ min: 1, max: 10_000 }),
      fc.integer({ min: 1, max: 600_000 }),
      (attempts, seed, baseMs, maxMs) => {
        const at = run(attempts, seed, { baseMs, maxMs, maxAttempts: 41 });
        if (at === null) return false;
        const delay = at.getTime() - now.getTime();
        const ceiling = Math.max(1, Math.min(maxMs, baseMs * 2 ** (attempts - 1)));
        return delay > 0 && delay >= ceiling / 2 && delay <= ceiling + 1;
      },
    ),
  );
  t.pass("property held");
});

t.test("the delay doubles per attempt until the cap", async (t) => {
  const lowest = (attempts: number) => {
    let min = Infinity;
    for (let seed = 0; seed < 50; seed++) min = Math.min(min, run(attempts, seed, { baseMs: 1000, maxMs: 8000, maxAttempts: 10 })!.getTime() - now.getTime());
    return min;
  };
  t.ok(lowest(1) >= 500 && lowest(1) <= 1000);
  t.ok(lowest(2) >= 1000);
  t.ok(lowest(3) >= 2000);
  t.ok(lowest(4) >= 4000);
  t.ok(lowest(9) >= 4000 && lowest(9) <= 8001, "capped at maxMs");
});

t.test("jitter spreads retries of different workers apart", async (t) => {
  const times = new Set<number>();
  for (let seed = 0; seed < 20; seed++) times.add(run(3, seed)!.getTime());
  t.ok(times.size > 1);
});

t.test("under the default policy a job is retried for longer than a payment's ambiguity window before it is dead-lettered", async (t) => {
  // The least a retry can wait is half its capped delay (the property above); add up every retry.
  let least = 0;
  for (let attempts = 1; attempts < defaultBackoff.maxAttempts; attempts++) {
    least += Math.min(defaultBackoff.maxMs, defaultBackoff.baseMs * 2 ** (attempts - 1)) / 2;
  }
  t.ok(least > defaultReconciliationSettings.ambiguityWindowMs, `at least ${Math.round(least / 60_000)} min of retries`);
  t.equal(run(defaultBackoff.maxAttempts, 1, defaultBackoff), null, "and then no more");
});
