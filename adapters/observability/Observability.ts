/**
 * One host's observability, composed: the metric set (its own registry, or the embedding
 * host's), the scrape-time sources of a database, the Transactions wrapper, and the Koa
 * middleware that times requests. The reference server uses this; an embedding host can too:
 *
 *   const obs = observeHost({ registry: myRegistry, database, modules: ["payments"] });
 *   embedModule(paymentsModule, { database, rebind: (c) => rebindPort(c, Transactions, obs.transactions), ... });
 *   app.use(obs.middleware);   // before the module router
 */
import type { Middleware } from "koa";
import type { Registry } from "prom-client";
import type { SqlDatabase } from "../sql/SqlDatabase.js";
import type { Transactions } from "../../ports/Transactions.js";
import { makeTransactions } from "../sql/Transactions.js";
import { httpMetrics } from "./HttpMetrics.js";
import { metricsFor, type DomainkitMetrics, type MetricsOptions } from "./Metrics.js";
import { databaseState, poolState, realtimeState } from "./StateCollectors.js";
import { timedTransactions } from "./TransactionMetrics.js";

/** What {@link observeHost} is given. */
export interface ObserveHostOptions extends MetricsOptions {
  /** The registry to register in (an embedding host's own); a fresh one when omitted. */
  readonly registry?: Registry;
  readonly database: SqlDatabase;
  /** Names of the mounted modules: "payments" adds the payments gauges. */
  readonly modules: ReadonlyArray<string>;
}

/** A host's observability. */
export interface HostObservability {
  readonly metrics: DomainkitMetrics;
  /** Times every request; mount it before the routes (KoaAppOptions.observe). */
  readonly middleware: Middleware;
  /**
   * The Transactions port over the database, timed by the latency histogram: a host binds it in
   * place of the default (`rebindPort(container, Transactions, observed.transactions)`).
   */
  readonly transactions: Transactions;
  /** Adds the websocket gauges of a realtime endpoint. */
  readonly observeRealtime: (realtime: { readonly connectionCount: () => number; readonly subscriptionCount?: () => number }) => void;
  /** Removes this host's scrape-time sources (the registry's metrics stay). */
  readonly close: () => void;
}

/** Registers the metrics of a host over `database`. */
export const observeHost = (options: ObserveHostOptions): HostObservability => {
  const metrics = metricsFor(options.registry, options);
  const removals = [
    metrics.addSource(options.database, databaseState(options.database, {
        payments: options.modules.includes("payments"),
        files: options.modules.includes("files"),
        commerce: options.modules.includes("commerce"),
        delivery: options.modules.includes("delivery"),
      })),
    metrics.addSource(Symbol("pool"), poolState(options.database)),
  ];
  return {
    metrics,
    middleware: httpMetrics(metrics),
    transactions: timedTransactions(makeTransactions(options.database), options.database, metrics.transactionDuration),
    observeRealtime: (realtime) => {
      removals.push(metrics.addSource(realtime, realtimeState(realtime)));
    },
    close: () => {
      for (const remove of removals) remove();
    },
  };
};
