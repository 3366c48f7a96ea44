/** Observability: Prometheus metrics, readiness checks, tracing, URL redaction (`domainkit/observability`). */
export * from "./Metrics.js";
export * from "./HttpMetrics.js";
export * from "./StateCollectors.js";
export * from "./TransactionMetrics.js";
export * from "./Observability.js";
export * from "./Readiness.js";
export * from "./Tracing.js";
export * from "./ProblemIds.js";
export * from "./Redact.js";
