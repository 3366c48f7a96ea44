/**
 * Prometheus metrics of a domainkit host (prom-client; docs/decisions.md "Operability" says why).
 *
 * Two kinds:
 * - event metrics, moved where the event happens: HTTP requests (route template, method,
 *   status, latency), idempotency replays and conflicts, rate-limit refusals (both read from
 *   the answer, so no route code changes), transaction latency (a wrapper of the Transactions
 *   port);
 * - state metrics, read when Prometheus scrapes (StateCollectors.ts): outbox backlog and relay
 *   lag, jobs by state, webhook deliveries by outcome, payments exceptions, pool usage,
 *   websocket connections. Nothing in the worker or the cores writes a metric.
 *
 * All names start with `domainkit_`. An embedding host passes its own `Registry`; asking twice
 * for the metrics of one registry answers the same set (prom-client refuses duplicate names).
 */
import { collectDefaultMetrics, Counter, Gauge, Histogram, Registry } from "prom-client";

/** A source of scrape-time values; several hosts may share one registry. */
export type GaugeSource = () => Promise<ReadonlyArray<GaugeReading>> | ReadonlyArray<GaugeReading>;

/** One value of one state gauge. */
export interface GaugeReading {
  readonly metric: StateGaugeName;
  readonly labels?: Readonly<Record<string, string>>;
  readonly value: number;
}

/** The state gauges, their help text and label names. */
export const stateGauges = {
  domainkit_outbox_backlog: { help: "Outbox events not yet delivered (status pending).", labels: [] },
  domainkit_outbox_dead: { help: "Outbox events dead-lettered after their last attempt.", labels: [] },
  domainkit_outbox_oldest_pending_age_seconds: {
    help: "Age of the oldest undelivered outbox event (relay lag); 0 when none is pending.",
    labels: [],
  },
  domainkit_jobs: { help: "Durable jobs by state: due (pending, run_at passed), scheduled, running, dead.", labels: ["state"] },
  domainkit_webhook_deliveries: { help: "Merchant webhook deliveries waiting for an attempt (pending) or dead-lettered (dead).", labels: ["outcome"] },
  domainkit_payments_provider_timeouts: {
    help: "Payment attempts whose provider outcome is unknown (timeout, network error or 5xx), kept for reconciliation.",
    labels: [],
  },
  domainkit_payments_reconciliation_exceptions_open: { help: "Open settlement reconciliation exceptions.", labels: [] },
  domainkit_files_versions_unpublished: {
    help: "File versions not published, by status: quarantined (waiting for the scanner), scan_failed (the scanner gave up), blocked (malware).",
    labels: ["status"],
  },
  domainkit_files_uploads_open: { help: "Upload sessions open (holding quota reservations).", labels: [] },
  domainkit_commerce_orders: {
    help: "Orders an operator watches, by status: payment_pending (provider outcome unknown), cancellation_requested.",
    labels: ["status"],
  },
  domainkit_delivery_deliveries_unassigned: { help: "Deliveries of accepted orders still without a courier.", labels: [] },
  domainkit_db_pool_connections: { help: "Database pool connections by state (total, idle, waiting clients).", labels: ["state"] },
  domainkit_websocket_connections: { help: "Open realtime websocket connections.", labels: [] },
  domainkit_websocket_subscriptions: { help: "Channel subscriptions over all realtime connections.", labels: [] },
} as const satisfies Record<string, { help: string; labels: ReadonlyArray<string> }>;

/** The name of a state gauge. */
export type StateGaugeName = keyof typeof stateGauges;

/** The metric set of one registry. */
export interface DomainkitMetrics {
  readonly registry: Registry;
  readonly httpRequestDuration: Histogram<"route" | "method" | "status">;
  readonly idempotencyReplays: Counter<"route">;
  readonly idempotencyConflicts: Counter<"route" | "code">;
  readonly rateLimitRefusals: Counter<"route" | "code">;
  readonly transactionDuration: Histogram<"outcome">;
  readonly scrapeErrors: Counter<"source">;
  /** Runs `hook` at the start of every scrape (buffered observations are flushed there). */
  readonly beforeScrape: (hook: () => void) => void;
  /** Adds a scrape-time source (sources keyed alike replace each other); returns its removal. */
  readonly addSource: (key: unknown, source: GaugeSource) => () => void;
}

const byRegistry = new WeakMap<Registry, DomainkitMetrics>();

/** Options of {@link metricsFor}. */
export interface MetricsOptions {
  /** Also export Node's process metrics (CPU, memory, event loop lag, GC); default true. Once per registry. */
  readonly processMetrics?: boolean;
}

/** The domainkit metrics registered in `registry` (a fresh registry when omitted). */
export const metricsFor = (registry: Registry = new Registry(), options: MetricsOptions = {}): DomainkitMetrics => {
  const existing = byRegistry.get(registry);
  if (existing !== undefined) return existing;
  if (options.processMetrics !== false) collectDefaultMetrics({ register: registry, prefix: "domainkit_process_" });
  const sources = new Map<unknown, GaugeSource>();
  const scrapeErrors = new Counter({
    name: "domainkit_metrics_scrape_errors_total",
    help: "State metric reads that failed during a scrape (that source's values are absent from that scrape).",
    labelNames: ["source"] as const,
    registers: [registry],
  });
  // One read of every source per scrape, shared by all state gauges of that scrape.
  let pending: Promise<ReadonlyArray<GaugeReading>> | undefined;
  const readAll = (): Promise<ReadonlyArray<GaugeReading>> =>
    (pending ??= (async () => {
      try {
        const results = await Promise.all(
          [...sources.values()].map(async (source) => {
            try {
              return await source();
            } catch {
              scrapeErrors.inc({ source: source.name || "state" });
              return undefined;
            }
          }),
        );
        return results.flatMap((r) => r ?? []);
      } finally {
        setImmediate(() => (pending = undefined));
      }
    })());
  for (const [name, spec] of Object.entries(stateGauges) as Array<[StateGaugeName, (typeof stateGauges)[StateGaugeName]]>) {
    new Gauge({
      name,
      help: spec.help,
      labelNames: [...spec.labels],
      registers: [registry],
      async collect() {
        const readings = (await readAll()).filter((r) => r.metric === name);
        // Summed per label set: two hosts on two databases in one registry add up.
        const sums = new Map<string, { labels: Record<string, string>; value: number }>();
        for (const reading of readings) {
          const labels = { ...reading.labels };
          const key = JSON.stringify(labels);
          const sum = sums.get(key);
          if (sum === undefined) sums.set(key, { labels, value: reading.value });
          else sum.value += reading.value;
        }
        this.reset();
        for (const { labels, value } of sums.values()) this.set(labels, value);
      },
    });
  }
  const hooks: Array<() => void> = [];
  const metrics: DomainkitMetrics = {
    registry,
    httpRequestDuration: new Histogram({
      collect() {
        for (const hook of hooks) hook();
      },
      name: "domainkit_http_request_duration_seconds",
      help: "HTTP requests by route template, method and status, with their latency (the _count series counts requests).",
      labelNames: ["route", "method", "status"] as const,
      buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
      registers: [registry],
    }),
    idempotencyReplays: new Counter({
      name: "domainkit_idempotency_replays_total",
      help: "Requests answered with a stored response (Idempotent-Replayed: true).",
      labelNames: ["route"] as const,
      registers: [registry],
    }),
    idempotencyConflicts: new Counter({
      name: "domainkit_idempotency_conflicts_total",
      help: "Idempotency keys reused for another request (idempotency_key_reused) or while the first was running (idempotency_request_in_progress).",
      labelNames: ["route", "code"] as const,
      registers: [registry],
    }),
    rateLimitRefusals: new Counter({
      name: "domainkit_rate_limit_refusals_total",
      help: "Requests refused with 429 (per-caller rate limit or action budget).",
      labelNames: ["route", "code"] as const,
      registers: [registry],
    }),
    transactionDuration: new Histogram({
      name: "domainkit_db_transaction_duration_seconds",
      help: "Database transactions (outermost Transactions.run) by outcome, with their latency.",
      labelNames: ["outcome"] as const,
      buckets: [0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5],
      registers: [registry],
    }),
    scrapeErrors,
    beforeScrape: (hook) => void hooks.push(hook),
    addSource: (key, source) => {
      sources.set(key, source);
      return () => {
        if (sources.get(key) === source) sources.delete(key);
      };
    },
  };
  byRegistry.set(registry, metrics);
  return metrics;
};
