/**
 * The middleware that turns every failure into problem+json (via the one error mapper), and
 * the routing fallback that turns "no route" into 404 `route_not_found` and "wrong method"
 * into 405 `method_not_allowed`. Server errors are logged with the request id; request bodies
 * are never logged. A failure the app's outage recogniser (`recognizeOutages`) names a dependency's
 * outage answers 503 `service_unavailable` and is logged as that outage (a warning), not as a bug.
 */
import type Koa from "koa";
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { isDomainError } from "../../core/kernel/Errors.js";
import { outageOf, toProblem, type OutageRecognizer } from "./ErrorMapper.js";
import { MethodNotAllowed, RouteNotFound } from "./HttpErrors.js";
import { renderProblem } from "./ProblemJson.js";
import { requestIdOf } from "./RequestId.js";

/**
 * Makes every failure answered on `app` that `recognize` names a dependency's outage (e.g. the SQL
 * adapter's `databaseOutageOf`) a 503 `service_unavailable` instead of a 500. Set on
 * `app.context`, the prototype of every request's context: no cost per request.
 */
export const recognizeOutages = (app: Koa, recognize: OutageRecognizer): void => {
  (app.context as { dependencyOutages?: OutageRecognizer }).dependencyOutages = recognize;
};

/** Renders a failure as problem+json on `ctx`, logging it when it is a server error. */
export const respondWithError = (ctx: Context, error: unknown, logger: Logger | undefined): void => {
  const recognize = (ctx as { readonly dependencyOutages?: OutageRecognizer }).dependencyOutages;
  const outage = recognize === undefined || isDomainError(error) ? undefined : outageOf(error, recognize);
  const problem = toProblem(error, recognize);
  if (outage !== undefined) {
    // Expected while a dependency is down (/readyz says so too): a warning naming it, the cause kept here only.
    logger?.warn(
      { request_id: requestIdOf(ctx), status: problem.status, dependency: outage.dependency, reason: outage.reason, err: error },
      `request refused: the ${outage.dependency} is unavailable (${outage.reason}); a dependency outage, not a bug`,
    );
  } else if (problem.status >= 500) {
    logger?.error({ request_id: requestIdOf(ctx), err: error, status: problem.status }, "request failed");
  }
  if (ctx.headerSent) return; // too late to answer; the log line above is all we can do
  renderProblem(ctx, problem);
};

/**
 * Middleware: catches anything thrown below it and answers problem+json. With `routingFallback`,
 * a request nothing answered is answered too, as `routingFallback()` would (one middleware
 * instead of two on every request of a host's app).
 */
export const errorHandling = (logger?: Logger, options: { readonly routingFallback?: boolean } = {}): Middleware => {
  const fallback = options.routingFallback === true;
  return async (ctx, next) => {
    try {
      await next();
      if (fallback) raiseWhenUnrouted(ctx);
    } catch (error) {
      respondWithError(ctx, error, logger);
    }
  };
};

/**
 * When nothing answered: 404 route_not_found, or 405 method_not_allowed (with `Allow`) when the
 * router's `allowedMethods` found the path.
 */
const raiseWhenUnrouted = (ctx: Context): void => {
  if (ctx.body !== undefined && ctx.body !== null) return;
  // allowedMethods answers 405 for a known method on the wrong path and 501 for unknown methods.
  if (ctx.status === 405 || ctx.status === 501) {
    const allow = ctx.response.get("Allow");
    throw new MethodNotAllowed({ allowed: allow === "" ? [] : allow.split(/,\s*/) });
  }
  if (ctx.status === 404) throw new RouteNotFound({});
};

/**
 * Middleware placed in front of the router: when nothing answered, raises 404 route_not_found,
 * or 405 method_not_allowed (with `Allow`) when the router's `allowedMethods` found the path.
 */
export const routingFallback = (): Middleware => async (ctx, next) => {
  await next();
  raiseWhenUnrouted(ctx);
};
