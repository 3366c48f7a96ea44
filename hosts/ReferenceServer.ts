/**
 * The reference server: every module over HTTP and realtime, on SQLite + a local blob store by
 * default or Postgres by configuration, with the worker in-process unless told otherwise.
 */
import { ServerResponse } from "node:http";
import type { Container } from "inversify";
import type { Logger } from "pino";
import { createKoaApp } from "../adapters/koa/App.js";
import { failedAuthentications } from "../adapters/koa/RateLimit.js";
import { memoryLimiters } from "../adapters/koa/LimiterStore.js";
import { postgresLimiters } from "../adapters/postgres/PostgresLimiters.js";
import { postgresPool } from "../adapters/postgres/openPostgres.js";
import { createLogger } from "../adapters/koa/Logging.js";
import { startHttpServer } from "../adapters/koa/Server.js";
import { recognizeOutages } from "../adapters/koa/ErrorHandling.js";
import { databaseOutageOf } from "../adapters/sql/TransientErrors.js";
import { resolveLimits, type Limits } from "../adapters/koa/Limits.js";
import type { ActionBudgetLimit, ActionBudgetName } from "../adapters/koa/ActionBudgets.js";
import type { RunningWorker } from "../adapters/worker/Worker.js";
import { attachRealtime } from "../adapters/ws/RealtimeServer.js";
import { mountBlobGrantHandler } from "../adapters/blob/BlobGrantHandler.js";
import { acceptsSecretTokens, loadConfig, refuseDevelopmentKeysInProduction, tokenVerificationOf, type Config } from "./Config.js";
import { migrateModules, openConfiguredDatabase, requireMigrated } from "./Database.js";
import { toComposition, type Composition, type HostModules } from "./Composition.js";
import { mountedRoutes } from "./ModuleDefinition.js";
import { referenceModules, type ReferencePorts } from "./modules/index.js";
import { configuredBlobStore, requireExistingBucket } from "./modules/blobStorageModule.js";
import { hostAuthentication } from "./HostAuthentication.js";
import type { Registry } from "prom-client";
import { observeHost } from "../adapters/observability/Observability.js";
import { mountMetrics } from "../adapters/observability/HttpMetrics.js";
import { databaseCheck, objectStoreCheck, realtimeBusCheck, workerCheck } from "../adapters/observability/Readiness.js";
import { enableSpanStackTraces } from "../core/kernel/Span.js";
import { chain, problemIds } from "../adapters/observability/ProblemIds.js";
import type { SpanExporter } from "@opentelemetry/sdk-trace-base";
import { rebindPort } from "./PortBindings.js";
import { Transactions } from "../ports/Transactions.js";
import { WebhookTargetSettings } from "../ports/payments/WebhookTargetSettings.js";
import { createHostCore, jwtUpgradeAuthentication, startHostWorker, type FileOptions, type HostCore } from "./Runtime.js";

/** Options beyond the environment configuration (tests and embedding hosts use them). */
export interface ServerOptions<P = ReferencePorts> {
  /** The modules to mount; the reference modules (hosts/modules/index.ts) when omitted. */
  readonly modules?: HostModules<P>;
  /** The Scanner and Thumbnailer (the ObjectStore is the configured one: the local blob store, or S3 with OBJECT_STORE_URL). */
  readonly files?: Omit<FileOptions, "store">;
  readonly logger?: Logger;
  readonly limits?: Partial<Limits>;
  /** Overrides of the default action budgets (invitations, mentions, shares). */
  readonly actionBudgets?: Partial<Record<ActionBudgetName, ActionBudgetLimit>>;
  /** Replace adapters before the runtime is built, e.g. `c => rebindPort(c, Tag, adapter)`. */
  readonly rebind?: (container: Container) => void;
  /** Realtime heartbeat interval (default 30 s). */
  readonly heartbeatMs?: number;
  /** Longest time a realtime connection's access decisions are trusted without a notice (default 60 s). */
  readonly realtimeRecheckMs?: number;
  /** The Prometheus registry of GET /metrics (a fresh one by default). */
  readonly registry?: Registry;
  /** Export spans here instead of OTLP (tests: an InMemorySpanExporter); turns tracing on. */
  readonly spanExporter?: SpanExporter;
}

/** A running reference server. */
export interface ReferenceServer<P = ReferencePorts> {
  readonly url: string;
  readonly port: number;
  readonly core: HostCore<P>;
  readonly worker: RunningWorker | undefined;
  /** Stops realtime, drains HTTP, stops the worker, disposes the runtime, closes the database. */
  readonly close: () => Promise<void>;
}

/**
 * In production, warns of the reference modules' sandboxes still standing in for outside services:
 * the in-process payment provider (PAYMENT_PROVIDER_URL unset: every test card "succeeds") and the
 * sandbox carrier (COMMERCE_CARRIER_URL unset). Server and worker both log it at start.
 */
export const warnOfSandboxServices = (config: Config, logger: Pick<Logger, "warn">): void => {
  if (!config.production) return;
  if (config.paymentProviderUrl === undefined) {
    logger.warn("PAYMENT_PROVIDER_URL is not set: payments go to the in-process sandbox (development only). Set it, with PAYMENT_PROVIDER_API_KEY, in production.");
  }
  if (config.commerce.carrierApi === undefined) {
    logger.warn("COMMERCE_CARRIER_URL is not set: shipments are tracked by the sandbox carrier (development only). Set it, with COMMERCE_CARRIER_API_KEY, in production.");
  }
};

/** Starts the reference server: the reference modules, or `options.modules`. */
export function createServer(config?: Config): Promise<ReferenceServer>;
export function createServer<P = ReferencePorts>(config: Config, options: ServerOptions<P>): Promise<ReferenceServer<P>>;
export function createServer<P>(config: Config = loadConfig(), options: ServerOptions<P> = {}): Promise<ReferenceServer<P> | ReferenceServer> {
  return options.modules === undefined
    ? startServer(config, referenceModules(config), options, { reference: true })
    : startServer(config, toComposition(options.modules), options, { reference: false });
}

const startServer = async <P>(
  config: Config,
  composition: Composition<P>,
  options: Omit<ServerOptions<unknown>, "modules">,
  // Whether the reference modules run (their providers come from the configuration), or a host's own.
  { reference }: { readonly reference: boolean },
): Promise<ReferenceServer<P>> => {
  const logger = options.logger ?? createLogger({ level: config.logLevel });
  // With a provider's public key and no secret of one's own, HS256 tokens are off and the default secret unused.
  const usingDevelopmentSecret = config.usingDevelopmentSecret && acceptsSecretTokens(config);
  if (usingDevelopmentSecret) {
    logger.warn("AUTH_JWT_SECRET is not set: using the documented development secret. Set it in production.");
  }
  if (config.usingDevelopmentBlobSecret) {
    logger.warn("BLOB_SIGNING_SECRET is not set: using the documented development secret. Set it in production.");
  }
  // In production, data sealed with a documented key is not sealed: refuse to start (Config.ts does the same for the secrets).
  refuseDevelopmentKeysInProduction(config, composition.modules.map((m) => m.name));
  if (config.commerce.sealingKeys === undefined && composition.modules.some((m) => m.name === "commerce")) {
    logger.warn("COMMERCE_SEALING_KEYS is not set: order addresses are sealed with the documented development key. Set it in production.");
  }
  if (config.delivery.usingDevelopmentLocationKey && composition.modules.some((m) => m.name === "delivery")) {
    logger.warn("DELIVERY_LOCATION_KEY is not set: courier positions are sealed with the documented development key. Set it in production.");
  }
  if (reference) warnOfSandboxServices(config, logger);
  // The shared ObjectStore, Scanner and Thumbnailer are bound once for every module (rebindPort to replace them).
  const blobStore = await configuredBlobStore(config);
  await requireExistingBucket(blobStore, config);
  const modules = composition.modules;
  // With the worker in a process of its own, its commits and realtime notices are heard at once (SQLite).
  const database = await openConfiguredDatabase(config, logger, { watchOtherProcesses: !config.workerInProcess });
  try {
    if (config.migrateOnStart) {
      const { applied } = await migrateModules(database, modules);
      if (applied.length > 0) logger.info({ applied }, "migrations applied");
    } else {
      await requireMigrated(database, modules);
    }
  } catch (error) {
    await database.close();
    throw error;
  }
  // --- observability (adapters/observability): metrics sources, transaction timing, readiness checks
  const observed = observeHost({ database, modules: modules.map((m) => m.name), ...(options.registry ? { registry: options.registry } : {}) });
  const rebind = (container: Container): void => {
    rebindPort(container, Transactions, observed.transactions);
    // Plain-http loopback merchant webhooks are for development: never in production (security
    // audit S1), whatever composition this server runs (the reference modules decide the same,
    // hosts/modules/index.ts, for the separate worker).
    rebindPort(container, WebhookTargetSettings, { allowLoopbackHttp: !config.production });
    options.rebind?.(container);
  };
  // The OpenTelemetry SDK is loaded only when spans are exported (docs/decisions.md, "Optional SDKs load on first use").
  const tracing =
    options.spanExporter !== undefined || config.otlpEndpoint !== undefined
      ? (await import("../adapters/observability/Tracing.js")).createTracing({
          serviceName: config.serviceName,
          ...(config.otlpEndpoint !== undefined ? { endpoint: config.otlpEndpoint } : {}),
          ...(options.spanExporter !== undefined ? { exporter: options.spanExporter } : {}),
        })
      : undefined;
  // Exported spans carry their call sites; without an exporter nobody pays for capturing them.
  if (tracing !== undefined) enableSpanStackTraces();
  const core = await createHostCore({
    database,
    modules: composition,
    logger,
    files: { ...options.files, store: blobStore },
    rebind,
    ...(tracing !== undefined ? { tracer: tracing.tracer } : {}),
  });
  const busCheck = realtimeBusCheck(core.bus);
  // Every problem+json answer names its request (and its trace when spans are exported), so a
  // user's error report leads to the log lines and the trace.
  const observe = chain(tracing?.middleware, problemIds(), config.metricsEnabled ? observed.middleware : undefined);
  // --- end observability
  // User tokens: the HS256 secret, and the identity provider's public key when configured.
  const tokenVerification = tokenVerificationOf(config);
  // On Postgres the budgets that must hold across server processes count in the database.
  const pool = postgresPool(database);
  const limiterStore = pool !== undefined ? postgresLimiters(pool) : memoryLimiters;
  // One failed-authentication budget per client IP for HTTP and the realtime upgrade.
  const authenticationFailures = failedAuthentications(resolveLimits(options.limits), limiterStore);
  const app = createKoaApp({
    logger,
    trustedProxies: config.trustedProxies,
    failedAuthentications: authenticationFailures,
    limiterStore,
    runtime: core.runtime,
    authentication: hostAuthentication({ jwtSecret: tokenVerification, runtime: core.runtime, modules }),
    routes: modules.flatMap(mountedRoutes),
    // Grant-authorized byte transfers (PUT/GET /v1/blobs/:grant_token), outside the module routes.
    configureRouter: (router) => {
      if (config.metricsEnabled) mountMetrics(router, observed.metrics, { token: config.metricsToken });
      mountBlobGrantHandler(router, blobStore);
    },
    ...(observe !== undefined ? { observe } : {}),
    ...(options.limits ? { limits: options.limits } : {}),
    ...(options.actionBudgets ? { actionBudgets: options.actionBudgets } : {}),
    readiness: [databaseCheck(database), objectStoreCheck(blobStore), busCheck, workerCheck(database)],
    openApi: { title: "domainkit", version: "0.1.0", description: "Reference server of the domainkit library." },
  });
  // A request while the database is unreachable (or SQLite's lock is held past the busy timeout) answers 503, not 500.
  recognizeOutages(app, databaseOutageOf);
  const worker = config.workerInProcess ? await startHostWorker(core) : undefined;
  const shutdownCore = async (): Promise<void> => {
    busCheck.close();
    observed.close();
    await worker?.stop();
    await core.close();
    // The S3 adapter holds an HTTP client (sockets); the local store holds nothing.
    if ("close" in blobStore) blobStore.close();
    await tracing?.shutdown();
  };
  const shutdownDelayMs = options.limits?.shutdownDelayMs ?? config.shutdownDelayMs;
  const http = await startHttpServer(app, {
    host: config.host,
    port: config.port,
    // SHUTDOWN_DELAY_MS, unless the host's own limits say otherwise.
    limits: { ...options.limits, shutdownDelayMs },
    onClose: shutdownCore,
  }).catch(async (error: unknown) => {
    // e.g. EADDRINUSE: release the database and the worker so the process can exit with the error.
    await shutdownCore();
    throw error;
  });
  const realtime = attachRealtime(http.server, {
    authenticate: jwtUpgradeAuthentication(tokenVerification, core.runtime),
    runtime: core.runtime,
    failedAuthentications: authenticationFailures,
    // The client address exactly as the HTTP app reads it (TRUST_PROXY), so both spend one budget per client.
    clientIp: (request) => app.createContext(request, new ServerResponse(request)).ip,
    ...(options.heartbeatMs !== undefined ? { heartbeatMs: options.heartbeatMs } : {}),
    ...(options.realtimeRecheckMs !== undefined ? { recheckMs: options.realtimeRecheckMs } : {}),
  });
  observed.observeRealtime(realtime);
  logger.info({ url: http.url, database: database.dialect, worker: worker !== undefined }, "domainkit listening");
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> =>
    (closed ??= (async () => {
      if (shutdownDelayMs > 0) {
        logger.info({ shutdown_delay_ms: shutdownDelayMs }, "draining: /readyz answers 503 while requests are still served, then the server closes");
      }
      // Realtime stays open through the shutdown delay too; then it closes, and HTTP drains.
      await http.beginDraining();
      await realtime.close();
      await http.close();
    })());
  return { url: http.url, port: http.port, core, worker, close };
};
