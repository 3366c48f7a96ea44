/**
 * Effect's log lines (`Effect.logWarning` in the worker, the relay, the realtime server and the
 * cores) written through the host's pino logger, so they share its destination, format
 * (JSON, or pino-pretty in a terminal) and redaction instead of going to the console as logfmt.
 *
 * A line carries the fiber's log annotations as fields (`request_id` on every line logged while
 * a request is handled: EffectHandler annotates its program) and, when the host exports spans,
 * the `trace_id` and `span_id` of the span it was logged in, so a log line leads to its trace.
 * Without an exporter the spans are Effect's unexported native ones and their ids would lead
 * nowhere, so they are left out.
 */
import { Cause, Context, FiberRef, FiberRefs, HashMap, Logger, Option, Tracer, type LogLevel } from "effect";
import type { Logger as Pino } from "pino";

/** Options of {@link pinoEffectLogger}. */
export interface EffectLoggerOptions {
  /** Add `trace_id` and `span_id` of the current span (true when spans are exported). */
  readonly traceIds: boolean;
}

type PinoLevel = "fatal" | "error" | "warn" | "info" | "debug" | "trace";

const pinoLevel = (level: LogLevel.LogLevel): PinoLevel | undefined => {
  switch (level._tag) {
    case "Fatal":
      return "fatal";
    case "Error":
      return "error";
    case "Warning":
      return "warn";
    case "Info":
      return "info";
    case "Debug":
      return "debug";
    case "Trace":
      return "trace";
    default:
      return undefined;
  }
};

const text = (message: unknown): string =>
  Array.isArray(message) ? message.map((part) => (typeof part === "string" ? part : JSON.stringify(part))).join(" ") : String(message);

/** A Logger writing each Effect log line to `pino` at the matching level. */
export const pinoEffectLogger = (pino: Pino, options: EffectLoggerOptions): Logger.Logger<unknown, void> =>
  Logger.make(({ logLevel, message, annotations, cause, context }) => {
    const level = pinoLevel(logLevel);
    if (level === undefined || !pino.isLevelEnabled(level)) return;
    const fields: Record<string, unknown> = {};
    for (const [key, value] of HashMap.toEntries(annotations)) fields[key] = value;
    if (options.traceIds) {
      const span = Context.getOption(FiberRefs.getOrDefault(context, FiberRef.currentContext), Tracer.ParentSpan);
      if (Option.isSome(span)) {
        fields["trace_id"] = span.value.traceId;
        fields["span_id"] = span.value.spanId;
      }
    }
    if (!Cause.isEmpty(cause)) fields["cause"] = Cause.pretty(cause);
    pino[level](fields, text(message));
  });

/** The runtime Layer that replaces Effect's console logger with {@link pinoEffectLogger}. */
export const pinoEffectLoggerLayer = (pino: Pino, options: EffectLoggerOptions) => Logger.replace(Logger.defaultLogger, pinoEffectLogger(pino, options));
