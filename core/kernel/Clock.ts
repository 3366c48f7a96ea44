/** The current time for commands, from Effect's Clock (core never reads the wall clock itself). */
import { Clock, Effect } from "effect";

/** Now, as a Date; `TestClock` drives it in tests. */
export const now: Effect.Effect<Date> = Effect.map(Clock.currentTimeMillis, (millis) => new Date(millis));
