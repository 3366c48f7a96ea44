/** Effect's clock moved `ms` into the future: for tests of expiry and time windows (cores read Clock, never Date.now). */
import { Clock, Effect } from "effect";

export const clockAhead = (ms: number): Clock.Clock => {
  const base = Clock.make();
  return {
    [Clock.ClockTypeId]: Clock.ClockTypeId,
    unsafeCurrentTimeMillis: () => base.unsafeCurrentTimeMillis() + ms,
    currentTimeMillis: Effect.sync(() => base.unsafeCurrentTimeMillis() + ms),
    unsafeCurrentTimeNanos: () => base.unsafeCurrentTimeNanos() + BigInt(ms) * 1_000_000n,
    currentTimeNanos: Effect.sync(() => base.unsafeCurrentTimeNanos() + BigInt(ms) * 1_000_000n),
    sleep: (duration) => base.sleep(duration),
  };
};
