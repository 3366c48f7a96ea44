/**
 * The HTTP side of the metrics: a middleware that times every request by route template,
 * method and status, and counts idempotency replays and conflicts and rate-limit refusals from
 * the answer itself (a header, the status, the problem `code`), so no route changes; and the
 * GET /metrics endpoint, behind `Authorization: Bearer <METRICS_TOKEN>` when a token is set.
 *
 * Cost per request: one clock read, one Map lookup of the labelled histogram child and one
 * observe; problem bodies are only looked at for 409/422/429.
 */
import { timingSafeEqual } from "node:crypto";
import type Router from "@koa/router";
import type { Context, Middleware } from "koa";
import type { Histogram } from "prom-client";
import type { DomainkitMetrics } from "./Metrics.js";

/** The route label of requests no route matched (keeps the label set bounded). */
export const unmatchedRoute = "unmatched";

const codeOf = (ctx: Context): string => {
  const body = ctx.body as { code?: unknown } | null | undefined;
  return typeof body === "object" && body !== null && typeof body.code === "string" ? body.code : "unknown";
};

/** Latencies of one label set, waiting for the next scrape. */
interface Pending {
  readonly child: Histogram.Internal<"route" | "method" | "status">;
  values: number[];
}

/**
 * Middleware: observe each request in `metrics`. Mount it outside error handling so it sees the
 * final status. A request only appends its latency to an array; the histogram is fed when
 * Prometheus scrapes (or every 1024 requests of one label set), which keeps the hot path to a
 * clock read, a Map lookup and a push.
 */
export const httpMetrics = (metrics: DomainkitMetrics): Middleware => {
  const pending = new Map<string, Pending>();
  const histogram = metrics.httpRequestDuration;
  const flush = (entry: Pending): void => {
    const values = entry.values;
    entry.values = [];
    for (const value of values) entry.child.observe(value);
  };
  metrics.beforeScrape(() => {
    for (const entry of pending.values()) flush(entry);
  });
  return async (ctx, next) => {
    const started = performance.now();
    try {
      await next();
    } finally {
      const seconds = (performance.now() - started) / 1000;
      const route = (ctx as Context & { _matchedRoute?: unknown })._matchedRoute;
      const template = typeof route === "string" ? route : unmatchedRoute;
      const status = ctx.status;
      const key = `${ctx.method} ${status} ${template}`;
      let entry = pending.get(key);
      if (entry === undefined) {
        entry = { child: histogram.labels({ route: template, method: ctx.method, status: String(status) }), values: [] };
        // Bounded: method x status x route templates; unknown methods and paths share "unmatched".
        if (pending.size < 10_000) pending.set(key, entry);
      }
      entry.values.push(seconds);
      if (entry.values.length >= 1024 || pending.get(key) !== entry) flush(entry);
      if (status === 429) metrics.rateLimitRefusals.inc({ route: template, code: codeOf(ctx) });
      else if (status === 409 || status === 422) {
        const code = codeOf(ctx);
        if (code === "idempotency_key_reused" || code === "idempotency_request_in_progress") {
          metrics.idempotencyConflicts.inc({ route: template, code });
        }
      }
      // The header itself (Koa's `ctx.response.get` copies every response header first).
      if (ctx.res.getHeader("Idempotent-Replayed") === "true") metrics.idempotencyReplays.inc({ route: template });
    }
  };
};

const sameSecret = (given: string, expected: string): boolean => {
  const a = Buffer.from(given);
  const b = Buffer.from(expected);
  return a.length === b.length && timingSafeEqual(a, b);
};

/** Options of {@link mountMetrics}. */
export interface MetricsEndpointOptions {
  /** When set, a scrape needs `Authorization: Bearer <token>`. */
  readonly token?: string | undefined;
  /** Path of the endpoint (default /metrics). */
  readonly path?: string;
}

/** Registers GET /metrics (Prometheus text format) on `router`. */
export const mountMetrics = (router: Router, metrics: DomainkitMetrics, options: MetricsEndpointOptions = {}): Router => {
  router.get(options.path ?? "/metrics", async (ctx) => {
    ctx.set("Cache-Control", "no-store");
    if (options.token !== undefined) {
      const header = ctx.get("Authorization");
      const given = header.startsWith("Bearer ") ? header.slice("Bearer ".length).trim() : "";
      if (!sameSecret(given, options.token)) {
        ctx.status = 401;
        ctx.set("WWW-Authenticate", 'Bearer realm="metrics"');
        ctx.type = "application/problem+json";
        ctx.body = JSON.stringify({
          type: "urn:domainkit:problem:unauthorized",
          title: "Unauthorized",
          status: 401,
          detail: "GET /metrics needs Authorization: Bearer <METRICS_TOKEN>.",
          code: "unauthorized",
        });
        return;
      }
    }
    ctx.type = metrics.registry.contentType;
    ctx.body = await metrics.registry.metrics();
  });
  return router;
};
