/** The spans of the storage adapters: named like the port operation, without a call-site stack trace by default. */
import { Effect } from "effect";

let spanStackTraces = false;
const withoutStackTrace = { captureStackTrace: false } as const;

/**
 * Makes the storage spans capture their call site again (off by default: capturing is a `new
 * Error()` per span, paid on every query even when no tracer exports anything). A host that
 * installs an exporting tracer calls this once.
 */
export const enableSpanStackTraces = (enabled = true): void => {
  spanStackTraces = enabled;
};

/** `Effect.withSpan(name)` without the call-site stack trace unless enabled (see above). */
export const span =
  (name: string) =>
  <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> =>
    Effect.withSpan(self, name, spanStackTraces ? undefined : withoutStackTrace);
