/**
 * Effect's log lines go through the host's pino logger (adapters/observability/EffectLogger.ts):
 * at pino's level, with the fiber's annotations as fields (the request id a route's program is
 * annotated with), the trace and span ids of the current span when spans are exported, and
 * none of them when nothing is exported.
 */
import t from "tap";
import { Writable } from "node:stream";
import { InMemorySpanExporter } from "@opentelemetry/sdk-trace-base";
import { Effect, Layer, ManagedRuntime } from "effect";
import { createLogger } from "../../adapters/koa/Logging.js";
import { pinoEffectLoggerLayer } from "../../adapters/observability/EffectLogger.js";
import { createTracing } from "../../adapters/observability/Tracing.js";

const capturedLogger = (level: string) => {
  const lines: Array<Record<string, unknown>> = [];
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      for (const line of String(chunk).split("\n")) if (line.trim() !== "") lines.push(JSON.parse(line) as Record<string, unknown>);
      callback();
    },
  });
  return { logger: createLogger({ level, destination, format: "json" }), lines };
};

t.test("an Effect log line is a pino line at the matching level with the fiber's annotations", async (t) => {
  const { logger, lines } = capturedLogger("info");
  const runtime = ManagedRuntime.make(pinoEffectLoggerLayer(logger, { traceIds: false }));
  t.teardown(() => runtime.dispose());
  await runtime.runPromise(
    Effect.logWarning("consumer failed").pipe(Effect.annotateLogs({ consumer: "search", event_id: "e-1" }), Effect.annotateLogs("request_id", "req-1")),
  );
  await runtime.runPromise(Effect.logDebug("below the level"));
  t.equal(lines.length, 1, "a line below pino's level is dropped");
  t.match(lines[0], { level: 40, msg: "consumer failed", consumer: "search", event_id: "e-1", request_id: "req-1" });
  t.notOk("trace_id" in (lines[0] ?? {}), "no trace id when nothing is exported");
});

t.test("a failure's cause is written with the line", async (t) => {
  const { logger, lines } = capturedLogger("info");
  const runtime = ManagedRuntime.make(pinoEffectLoggerLayer(logger, { traceIds: false }));
  t.teardown(() => runtime.dispose());
  await runtime.runPromise(Effect.logError("pass failed", new Error("disk full")).pipe(Effect.catchAllCause(() => Effect.void)));
  await runtime.runPromise(Effect.fail(new Error("boom")).pipe(Effect.tapErrorCause((cause) => Effect.logError("job failed", cause)), Effect.ignore));
  t.equal(lines.length, 2);
  t.match(lines[1], { level: 50, msg: "job failed", cause: /boom/ });
});

t.test("with spans exported, a line logged inside a span carries that span's trace and span ids", async (t) => {
  const { logger, lines } = capturedLogger("info");
  const exporter = new InMemorySpanExporter();
  const tracing = createTracing({ serviceName: "test", exporter });
  t.teardown(() => tracing.shutdown());
  const runtime = ManagedRuntime.make(Layer.merge(pinoEffectLoggerLayer(logger, { traceIds: true }), Layer.setTracer(tracing.tracer)));
  t.teardown(() => runtime.dispose());
  await runtime.runPromise(Effect.logInfo("inside").pipe(Effect.withSpan("Worker.pass")));
  const span = exporter.getFinishedSpans().find((s) => s.name === "Worker.pass");
  t.ok(span, "the span was exported through the runtime's tracer");
  t.match(lines[0], { msg: "inside", trace_id: span?.spanContext().traceId, span_id: span?.spanContext().spanId });
});
