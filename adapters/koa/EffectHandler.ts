/**
 * The bridge from Koa to Effect. A route's program runs on the host's `ManagedRuntime` with
 * `CurrentPrincipal` provided from `ctx.state.principal`; its success is written as the
 * response, a typed failure goes through the one error mapper, and a defect is a 500 (a 503 when
 * it is a dependency's outage the app recognises: ErrorHandling.ts `recognizeOutages`).
 *
 * Client errors (4xx) are turned into responses inside the program (`settleClientErrors`) so the
 * idempotency path can store and replay them; server errors and defects stay failures, which
 * releases an idempotency key instead of storing the failure.
 */
import { Cause, Context as EffectContext, Effect, Exit, FiberRef, FiberRefs, HashMap, Option, type Fiber, type FiberId, type Runtime, type Tracer } from "effect";
import type { Context, Middleware } from "koa";
import type { Logger } from "pino";
import { CurrentPrincipal, type Principal } from "../../ports/Principal.js";
import type { StoredResponse } from "../../ports/IdempotencyStore.js";
import { principalOf } from "./Authentication.js";
import { etag } from "./ETag.js";
import { toProblem } from "./ErrorMapper.js";
import { respondWithError } from "./ErrorHandling.js";
import { problemContentType, type ProblemResponse } from "./ProblemJson.js";
import { cutByShutdown } from "./Server.js";

/** What a route handler answers: status, body (the schema's Type side), headers, version. */
export interface RouteResponse {
  readonly status: number;
  readonly body?: unknown;
  readonly headers?: Readonly<Record<string, string>>;
  /** The resource version; becomes `ETag: "<version>"`. */
  readonly etag?: number;
}

/**
 * The runtime every handler of a host runs on: a `ManagedRuntime` of whatever services the host
 * composed. Declared structurally (method syntax) so a runtime of any service set fits.
 */
export interface HostRuntime {
  runPromiseExit<A, E>(
    // eslint-disable-next-line @typescript-eslint/no-explicit-any
    effect: Effect.Effect<A, E, any>,
    options?: { readonly signal?: AbortSignal | undefined },
  ): Promise<Exit.Exit<A, unknown>>;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  runFork<A, E>(effect: Effect.Effect<A, E, any>, options?: Runtime.RunForkOptions): Fiber.RuntimeFiber<A, unknown>;
}

/** What the route machinery needs from the host for each request. */
export interface HostServices {
  readonly runtime: HostRuntime;
  readonly logger?: Logger | undefined;
}

/** Middleware: makes the host's runtime and logger available to `runHandler` on this request. */
export const provideHost = (services: HostServices): Middleware => (ctx, next) => {
  ctx.state.domainkitHost = services;
  return next();
};

/** The host services of the request; `createKoaApp` or `mountRoutes` put them there. */
export const hostOf = (ctx: Context): HostServices => {
  const services = ctx.state.domainkitHost as HostServices | undefined;
  if (services === undefined) throw new Error("No ManagedRuntime on this request: mount routes with mountRoutes or createKoaApp");
  return services;
};

/** A handler response as it is written and stored: the version folded into an ETag header. */
export const toStoredResponse = (response: RouteResponse): StoredResponse => {
  const headers: Record<string, string> = { ...response.headers };
  if (response.etag !== undefined) headers["ETag"] = etag(response.etag);
  return { status: response.status, body: response.body, headers };
};

/** A problem as a stored response (its content type included, so a replay is identical). */
export const problemAsStored = (problem: ProblemResponse): StoredResponse => ({
  status: problem.status,
  body: problem.body,
  headers: { ...problem.headers, "Content-Type": problemContentType },
});

/** Turns failures that map to 4xx into problem responses; 5xx failures stay failures. */
export const settleClientErrors = <E, R>(
  program: Effect.Effect<StoredResponse, E, R>,
): Effect.Effect<StoredResponse, E, R> =>
  Effect.catchAll(program, (error) => {
    const problem = toProblem(error);
    return problem.status < 500 ? Effect.succeed(problemAsStored(problem)) : Effect.fail(error);
  });

/** Writes a stored response to Koa, content type included. */
export const writeStoredResponse = (ctx: Context, response: StoredResponse): void => {
  ctx.status = response.status;
  let contentType: string | undefined;
  for (const [name, value] of Object.entries(response.headers ?? {})) {
    if (name.toLowerCase() === "content-type") contentType = value;
    else ctx.set(name, value);
  }
  if (response.body !== undefined && response.status !== 204 && response.status !== 304) ctx.body = response.body;
  // Koa picks application/json when an object is assigned; a stored problem keeps its own type.
  if (contentType !== undefined && ctx.body !== undefined) ctx.type = contentType;
};

/**
 * The request's fiber starts with its log annotation (`request_id` on every Effect log line,
 * adapters/observability/EffectLogger.ts) and `CurrentPrincipal` in its context, as
 * `Effect.annotateLogs` and `Effect.provideService` would give it: set in the fiber's initial
 * refs, they cost no effect operations (each of those two wraps the program in a get, a set and
 * a restore under an uninterruptible region, about 15 operations of a request's 160).
 */
const requestRefs =
  (requestId: string, principal: Principal | undefined) =>
  (refs: FiberRefs.FiberRefs, fiberId: FiberId.Runtime): FiberRefs.FiberRefs => {
    const annotations = HashMap.set(FiberRefs.getOrDefault(refs, FiberRef.currentLogAnnotations), "request_id", requestId as unknown);
    const annotated = FiberRefs.updateAs(refs, { fiberId, fiberRef: FiberRef.currentLogAnnotations, value: annotations });
    if (principal === undefined) return annotated;
    const context = EffectContext.add(FiberRefs.getOrDefault(refs, FiberRef.currentContext), CurrentPrincipal, principal);
    return FiberRefs.updateAs(annotated, { fiberId, fiberRef: FiberRef.currentContext, value: context });
  };

/** Methods that change nothing: their handlers are interrupted when the client leaves. */
const readMethods = new Set(["GET", "HEAD", "OPTIONS"]);

/**
 * Runs a program that yields a stored response on the host runtime and writes the outcome:
 * success as the response, typed failure through the error mapper, defect as a 500.
 * When the client leaves before the answer is sent, a read is interrupted (nothing to keep);
 * a write runs to completion and its answer is stored under its idempotency key for the
 * client's retry: interrupting it between a provider call and the recording of its answer would
 * leave an outcome for the recovery jobs to find out, and a retry would find the work half done.
 * When shutdown cuts the connection, every handler is interrupted: its transaction rolls back
 * and its idempotency key is released.
 */
export const runStored = async <E, R>(ctx: Context, program: Effect.Effect<StoredResponse, E, R>): Promise<void> => {
  const { runtime, logger } = hostOf(ctx);
  const principal = principalOf(ctx);
  // Tracing (adapters/observability/Tracing.ts): only when spans are exported, run under the request's span.
  const tracing = ctx.state.effectTracing as { readonly tracer: Tracer.Tracer; readonly parent: Tracer.AnySpan } | undefined;
  const traced = tracing === undefined ? program : Effect.withTracer(Effect.withParentSpan(program, tracing.parent), tracing.tracer);
  // The fiber is interrupted directly when the connection closes first (no AbortController per request).
  const fiber = runtime.runFork(traced, { updateRefs: requestRefs(ctx.state.requestId as string, principal) });
  let abandoned = false;
  let left = false;
  const onClose = (): void => {
    if (ctx.res.writableFinished) return;
    if (readMethods.has(ctx.method) || cutByShutdown(ctx)) {
      abandoned = true;
      fiber.unsafeInterruptAsFork(fiber.id());
    } else {
      left = true;
    }
  };
  ctx.res.once("close", onClose);
  let exit: Exit.Exit<StoredResponse, unknown>;
  try {
    exit = await new Promise<Exit.Exit<StoredResponse, unknown>>((resolve) => fiber.addObserver(resolve));
  } finally {
    ctx.res.off("close", onClose);
  }
  if (abandoned && Exit.isFailure(exit) && Cause.isInterruptedOnly(exit.cause)) {
    logger?.warn({ request_id: ctx.state.requestId }, "connection closed before the answer; handler interrupted");
    return;
  }
  if (left) logger?.info({ request_id: ctx.state.requestId }, "the client left before the answer; the write finished (a retry under its key gets the stored answer)");
  if (Exit.isSuccess(exit)) return writeStoredResponse(ctx, exit.value);
  const failure = Cause.failureOption(exit.cause);
  if (Option.isSome(failure)) return respondWithError(ctx, failure.value, logger);
  // A defect or an interruption: log the whole cause, answer a bare 500.
  // The squashed defect is its `cause`, so the error mapper can tell a database outage from a bug.
  respondWithError(ctx, new HandlerDefect(Cause.pretty(exit.cause), { cause: Cause.squash(exit.cause) }), logger);
};

/** Runs a handler program (Koa -> Effect) and writes its response or its problem. */
export const runHandler = <E, R>(ctx: Context, program: Effect.Effect<RouteResponse, E, R>): Promise<void> =>
  runStored(ctx, Effect.map(program, toStoredResponse));

/** A defect or interruption of a handler, carried to the 500 log line with its full cause. */
export class HandlerDefect extends Error {
  override readonly name = "HandlerDefect";
}
