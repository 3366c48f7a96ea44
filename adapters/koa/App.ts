/**
 * The Koa application of a host: request id, access log, problem+json errors, health probes,
 * the OpenAPI document and docs page, and every module's routes, composed in one order:
 *
 *   request id -> access log -> error handling and routing fallback (404/405) -> host runtime -> router
 *   router: /healthz, /readyz, /v1/openapi.json, /v1/docs and the host's raw routes; then the
 *   module routes, one router per path group (RouteGroups.ts), each route with its own chain
 *   (see Route.ts: authentication -> rate limit -> body -> decode -> idempotency -> handler).
 */
import Router from "@koa/router";
import Koa, { type Middleware } from "koa";
import type { Logger } from "pino";
import type { IdempotencyPolicy } from "../../core/kernel/Idempotency.js";
import { mountApiDocs } from "./ApiDocs.js";
import { provideHost, type HostRuntime } from "./EffectHandler.js";
import { errorHandling } from "./ErrorHandling.js";
import { mountHealth, type Readiness } from "./Health.js";
import { resolveLimits, type Limits } from "./Limits.js";
import type { ActionBudgetLimit, ActionBudgetName } from "./ActionBudgets.js";
import type { LimiterStore } from "./LimiterStore.js";
import { accessLog } from "./Logging.js";
import { chain } from "./MiddlewareChain.js";
import { openApiDocument } from "./OpenApi.js";
import { failedAuthentications, rateLimit, type FailedAuthentications } from "./RateLimit.js";
import { requestId } from "./RequestId.js";
import { groupedRoutes } from "./RouteGroups.js";
import { routeMounter, type Route } from "./Route.js";

/** Everything a host decides about its HTTP app. */
export interface KoaAppOptions {
  readonly logger: Logger;
  /** The runtime every handler runs on; the host disposes it on shutdown (Server.ts `onClose`). */
  readonly runtime: HostRuntime;
  /** Sets `ctx.state.principal` on `auth: "required"` routes (jwtAuthentication or the host's own). */
  readonly authentication?: Middleware;
  readonly routes: ReadonlyArray<Route>;
  /** Overrides of the documented defaults in Limits.ts. */
  readonly limits?: Partial<Limits>;
  /** The /readyz check (e.g. a database ping); always ready when omitted. */
  readonly readiness?: Readiness;
  /** Title and version of the OpenAPI document; `false` serves no document and no docs page. */
  readonly openApi?: { readonly title: string; readonly version: string; readonly description?: string } | false;
  /** Per-caller rate limiting and the per-IP bound on failed authentications (on by default). */
  readonly rateLimit?: boolean;
  /** The failed-authentication budget, to share it with the realtime upgrade; one of this app's own when omitted. */
  readonly failedAuthentications?: FailedAuthentications;
  /**
   * Reverse proxies in front of the app that append to `X-Forwarded-For` (default 0: the client IP
   * is the TCP peer). Behind N, the client IP is the Nth entry from the right: what the proxy
   * nearest the client saw, which a client cannot forge by sending its own header.
   */
  readonly trustedProxies?: number;
  readonly idempotencyPolicy?: Partial<IdempotencyPolicy>;
  /** Overrides of the default action budgets (invitations, mentions, shares; ActionBudgets.ts). */
  readonly actionBudgets?: Partial<Record<ActionBudgetName, ActionBudgetLimit>>;
  /**
   * Where the budgets that must hold across server processes count: the shared action budgets and
   * (unless `failedAuthentications` is given) failed authentications. This process's memory when omitted.
   */
  readonly limiterStore?: LimiterStore;
  /** Adds further raw routes (e.g. a module's webhook) to the router before the module routes. */
  readonly configureRouter?: (router: Router) => void;
  /** Observability middleware (adapters/observability: metrics, tracing), placed right after the request id. */
  readonly observe?: Middleware;
}

/** Builds the host's Koa application; start it with `startHttpServer`. */
export const createKoaApp = (options: KoaAppOptions): Koa => {
  const limits = resolveLimits(options.limits);
  const trustedProxies = options.trustedProxies ?? 0;
  const app = new Koa(trustedProxies > 0 ? { proxy: true, maxIpsCount: trustedProxies } : { proxy: false });
  // Errors are answered and logged by errorHandling; this only sees failures after the answer.
  app.silent = true;
  app.on("error", (err: unknown) => options.logger.error({ err }, "response stream failed"));
  // Probes, docs and the host's raw routes; the module routes are dispatched by group (RouteGroups.ts).
  const router = new Router();
  mountHealth(router, options.readiness, options.logger);
  if (options.openApi !== false) {
    const info = options.openApi ?? { title: "domainkit", version: "0.1.0" };
    mountApiDocs(router, () => openApiDocument({ ...info, routes: options.routes }), { title: `${info.title} API` });
  }
  options.configureRouter?.(router);
  const mountOptions = {
    runtime: options.runtime,
    logger: options.logger,
    authentication: options.authentication,
    rateLimit: options.rateLimit === false ? undefined : rateLimit(limits),
    authenticationGuard: options.rateLimit === false ? undefined : (options.failedAuthentications ?? failedAuthentications(limits, options.limiterStore)).guard,
    limits,
    idempotencyPolicy: options.idempotencyPolicy,
    actionBudgets: options.actionBudgets,
    limiterStore: options.limiterStore,
  };
  const moduleRoutes = groupedRoutes(options.routes, routeMounter(mountOptions));
  // The envelope of every request and the routers, as one middleware (MiddlewareChain.ts: no
  // dispatch between them; Koa's own compose dispatches once).
  app.use(
    chain(
      requestId(),
      options.observe,
      accessLog(options.logger),
      // With the routing fallback: a request no route answered is 404 route_not_found or 405.
      errorHandling(options.logger, { routingFallback: true }),
      // Raw routes added by configureRouter can call runHandler too.
      provideHost({ runtime: options.runtime, logger: options.logger }),
      // The routers' middleware add `params` and `router` to the context they are given (app.use infers that).
      router.routes() as Middleware,
      moduleRoutes as Middleware,
      // Sees the routes matched by both (ctx.matched accumulates): 405 with Allow, OPTIONS.
      router.allowedMethods() as Middleware,
    ),
  );
  return app;
};
