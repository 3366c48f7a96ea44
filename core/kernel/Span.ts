/**
 * The spans of the library's use cases and adapters: `withSpan(name, options?)` is
 * `Effect.withSpan` without the call-site stack trace unless a host asks for it, and with no
 * span at all on a fiber whose tracer is disabled.
 */
import { Effect, FiberRef } from "effect";
import type { Tracer } from "effect";

// Process-wide on purpose: the trace is taken when the span is declared (`withSpan(name)` runs
// while a use case builds its program), before any runtime or fiber exists to carry a setting.
let spanStackTraces = false;

/**
 * Makes `withSpan` capture its call site again, as `Effect.withSpan` does (off by default: the
 * capture is a `new Error()` per span, paid on every call even when no tracer exports anything).
 * A host that installs an exporting tracer calls this once.
 */
export const enableSpanStackTraces = (enabled = true): void => {
  spanStackTraces = enabled;
};

/** Whether `withSpan` captures call sites now (see `enableSpanStackTraces`). */
export const spanStackTracesEnabled = (): boolean => spanStackTraces;

// Effect records the trace as the span's `code.stacktrace` attribute when the span fails. Like
// Effect, the `Error` is made where the span is declared, with the stack cut short (frame 0 is
// the message, 1 is `withSpan`, 2 the code that declared the span), and read only when asked for.
const lazyCallSite = (trace: Error): (() => string | undefined) => {
  let cached: string | undefined;
  return () => (cached ??= trace.stack?.split("\n")[2]?.trim());
};

/**
 * `Effect.withSpan(name, options)`, pipeable, that captures no call-site stack trace unless
 * `enableSpanStackTraces()` was called (an explicit `captureStackTrace` in `options` wins).
 *
 * Where the tracer is disabled (`Layer.setTracerEnabled(false)`: a host that exports no spans),
 * the effect runs as it is. `Effect.withSpan` would still make a no-op span there and provide
 * it as the parent span, copying the fiber's whole service context twice per span (two
 * `Context.add`s of every service the host composed) and comparing contexts when it restores
 * them: about 6% of a PATCH's CPU with 20 spans per request and ~40 services.
 */
export const withSpan = (name: string, options?: Tracer.SpanOptions) => {
  let spanOptions: Tracer.SpanOptions;
  if (options?.captureStackTrace !== undefined) spanOptions = options;
  else if (!spanStackTraces) spanOptions = { ...options, captureStackTrace: false };
  else {
    const limit = Error.stackTraceLimit;
    Error.stackTraceLimit = 2;
    const trace = new Error();
    Error.stackTraceLimit = limit;
    spanOptions = { ...options, captureStackTrace: lazyCallSite(trace) };
  }
  return <A, E, R>(self: Effect.Effect<A, E, R>): Effect.Effect<A, E, R> => {
    const traced = Effect.withSpan(self, name, spanOptions);
    return Effect.withFiberRuntime((fiber) => (fiber.getFiberRef(FiberRef.currentTracerEnabled) ? traced : self));
  };
};
