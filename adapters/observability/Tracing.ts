/**
 * Traces: the Effect spans the cores and repositories already open (`Effect.withSpan`) are
 * exported through OpenTelemetry (`@effect/opentelemetry`'s tracer over an OTel SDK tracer
 * provider, OTLP/HTTP exporter) when OTEL_EXPORTER_OTLP_ENDPOINT is set.
 *
 * The HTTP middleware opens one SERVER span per request (named by method and route template,
 * never by the raw path, which may carry share tokens) and hands the Effect side two things in
 * `ctx.state.effectTracing`: the Effect tracer and the request span as parent; the route bridge
 * (EffectHandler.runStored) runs the handler program under them, so the tree is
 * HTTP request -> command -> repository. `ctx.state.traceId` puts the trace id in the access log
 * line and in problem+json bodies (ProblemIds.ts).
 *
 * Nothing is installed globally (no global tracer provider or context manager), so two hosts
 * in one process trace independently, and a host without tracing pays nothing: the middleware
 * is not mounted and the bridge sees no `effectTracing`.
 */
import { SpanKind, SpanStatusCode, type Tracer as OtelApiTracer } from "@opentelemetry/api";
import { OTLPTraceExporter } from "@opentelemetry/exporter-trace-otlp-http";
import { resourceFromAttributes } from "@opentelemetry/resources";
import { BasicTracerProvider, BatchSpanProcessor, SimpleSpanProcessor, type SpanExporter } from "@opentelemetry/sdk-trace-base";
import { ATTR_SERVICE_NAME } from "@opentelemetry/semantic-conventions";
import * as EffectOtelTracer from "@effect/opentelemetry/Tracer";
import { Effect, Tracer } from "effect";
import type { Context, Middleware } from "koa";
import { requestIdOf } from "../koa/RequestId.js";

/** What the route bridge needs to run a handler inside the request's trace. */
export interface EffectTracing {
  readonly tracer: Tracer.Tracer;
  readonly parent: Tracer.ExternalSpan;
}

/** Options of {@link createTracing}. */
export interface TracingOptions {
  /** service.name of every span. */
  readonly serviceName: string;
  /** OTLP/HTTP base URL (OTEL_EXPORTER_OTLP_ENDPOINT); spans go to `<endpoint>/v1/traces`. */
  readonly endpoint?: string;
  /** Another exporter instead (tests pass an InMemorySpanExporter); exported at once, unbatched. */
  readonly exporter?: SpanExporter;
}

/** A host's tracing. */
export interface Tracing {
  /** The Effect tracer (OTel-backed). */
  readonly tracer: Tracer.Tracer;
  /** The OTel tracer the request spans come from. */
  readonly otelTracer: OtelApiTracer;
  /** Opens the request span; mount right after the request id. */
  readonly middleware: Middleware;
  /** Flushes pending spans and stops the exporter. */
  readonly shutdown: () => Promise<void>;
}

/** Builds tracing over an OTLP endpoint or a given exporter. */
export const createTracing = (options: TracingOptions): Tracing => {
  const exporter =
    options.exporter ?? new OTLPTraceExporter({ url: `${(options.endpoint ?? "http://127.0.0.1:4318").replace(/\/+$/, "")}/v1/traces` });
  const provider = new BasicTracerProvider({
    resource: resourceFromAttributes({ [ATTR_SERVICE_NAME]: options.serviceName }),
    spanProcessors: [options.exporter !== undefined ? new SimpleSpanProcessor(exporter) : new BatchSpanProcessor(exporter)],
  });
  const otelTracer = provider.getTracer("domainkit");
  const tracer = Effect.runSync(Effect.provideService(EffectOtelTracer.make, EffectOtelTracer.OtelTracer, otelTracer));
  const middleware: Middleware = async (ctx, next) => {
    const span = otelTracer.startSpan(ctx.method, {
      kind: SpanKind.SERVER,
      attributes: { "http.request.method": ctx.method, "domainkit.request_id": requestIdOf(ctx) },
    });
    const context = span.spanContext();
    ctx.state.traceId = context.traceId;
    const tracing: EffectTracing = {
      tracer,
      parent: Tracer.externalSpan({ traceId: context.traceId, spanId: context.spanId, sampled: true }),
    };
    ctx.state.effectTracing = tracing;
    try {
      await next();
    } finally {
      const route = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
      if (typeof route === "string") {
        span.updateName(`${ctx.method} ${route}`);
        span.setAttribute("http.route", route);
      }
      span.setAttribute("http.response.status_code", ctx.status);
      if (ctx.status >= 500) span.setStatus({ code: SpanStatusCode.ERROR });
      span.end();
    }
  };
  return {
    tracer,
    otelTracer,
    middleware,
    shutdown: () => provider.shutdown().catch(() => undefined),
  };
};
