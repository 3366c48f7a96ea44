/** A bound of `max` events in any sliding window (the risk limits of commerce and payments). */
import { Duration } from "effect";
import fc from "fast-check";
import t from "tap";
import { retryAfterSeconds, windowStart } from "../../core/kernel/SlidingWindowBound.js";
import { holds } from "./support/properties.js";

const bound = { max: 3, window: Duration.hours(1) };
const hourMs = 3_600_000;

t.test("under the bound there is no wait; at it, the wait lasts until the oldest event leaves the window (whole seconds, at least 1)", async (t) => {
  const at = new Date("2026-11-28T12:00:00.000Z");
  t.same(windowStart(bound, at), new Date("2026-11-28T11:00:00.000Z"), "the window ends at `at` and lasts an hour");
  await holds(
    t,
    fc.property(fc.array(fc.integer({ min: 0, max: hourMs - 1 }), { maxLength: 3 }), (agesMs) => {
      const events = [...agesMs].sort((a, b) => b - a).map((age) => new Date(at.getTime() - age));
      const wait = retryAfterSeconds(bound, events, at);
      if (events.length < bound.max) return wait === null;
      const oldestAge = Math.max(...agesMs);
      return wait === Math.max(1, Math.ceil((hourMs - oldestAge) / 1000));
    }),
  );
  t.equal(retryAfterSeconds(bound, [new Date(at.getTime() - hourMs + 1), at, at], at), 1, "a wait of under a second is 1");
});
