/**
 * Starting and stopping the HTTP server. `close()` first waits `Limits.shutdownDelayMs` (0 by
 * default) while the server is marked draining (/readyz answers 503 `draining`, Health.ts) and
 * still serves, so a load balancer stops routing here; then it drains: it stops accepting connections,
 * lets in-flight requests finish (answering them with `Connection: close`), closes idle
 * keep-alive connections, cuts whatever is left after `Limits.shutdownTimeoutMs` (marking the
 * cut, so the handlers of cut writes are interrupted too: EffectHandler.ts), and only then runs
 * `onClose` (where the host disposes its ManagedRuntime).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type Koa from "koa";
import type { Context } from "koa";
import { resolveLimits, type Limits } from "./Limits.js";

/** Where and how to listen. */
export interface HttpServerOptions {
  /** Interface to bind; 127.0.0.1 unless a host deliberately exposes more. */
  readonly host?: string;
  /** Port to bind; 0 picks a free one (tests). */
  readonly port: number;
  readonly limits?: Partial<Limits>;
  /** Runs once after every connection closed, e.g. `() => runtime.dispose()`. */
  readonly onClose?: () => Promise<void>;
  /** How the shutdown delay waits (tests pass their own); a timer by default. */
  readonly wait?: (ms: number) => Promise<void>;
}

/** A listening server. */
export interface RunningHttpServer {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  /**
   * Marks the server draining (/readyz answers 503 `draining`) and resolves after
   * `Limits.shutdownDelayMs`, requests still being served meanwhile. `close` begins with it; a
   * host calls it first to keep other listeners (realtime) open through the delay. Safe to call more than once.
   */
  readonly beginDraining: () => Promise<void>;
  /** Waits the shutdown delay (beginDraining), drains and stops the server, then runs `onClose`. Safe to call more than once. */
  readonly close: () => Promise<void>;
}

/**
 * Whether `ctx`'s connection was cut by the server's shutdown (not left by its client): set on
 * `app.context`, the prototype of every request's context, when the drain times out.
 */
export const cutByShutdown = (ctx: Context): boolean => (ctx as { readonly shutdownCut?: boolean }).shutdownCut === true;

/** Whether `ctx`'s server is shutting down (its shutdown delay or drain began): /readyz answers 503 `draining`. */
export const isDraining = (ctx: Context): boolean => (ctx as { readonly draining?: boolean }).draining === true;

/** Starts `app` on `host:port` and resolves once it is listening. */
export const startHttpServer = async (app: Koa, options: HttpServerOptions): Promise<RunningHttpServer> => {
  const limits = resolveLimits(options.limits);
  const host = options.host ?? "127.0.0.1";
  const handle = app.callback();
  // Koa handlers still running, so shutdown can wait for them even after their connection is cut.
  // A count, not a set of their promises: a request pays an increment, not closures and a listener.
  let running = 0;
  let allSettled: (() => void) | undefined;
  const settled = (): void => {
    running -= 1;
    if (running === 0) allSettled?.();
  };
  let closing = false;
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(60_000, limits.requestTimeoutMs),
    },
    (req, res) => {
      if (closing) res.setHeader("Connection", "close");
      running += 1;
      handle(req, res).then(settled, settled);
    },
  );
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port, host, () => {
      server.off("error", reject);
      resolve();
    });
  });
  const port = (server.address() as AddressInfo).port;
  const wait = options.wait ?? ((ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms)));
  let draining: Promise<void> | undefined;
  const beginDraining = (): Promise<void> => {
    draining ??= (async () => {
      (app.context as { draining?: boolean }).draining = true;
      if (limits.shutdownDelayMs > 0) await wait(limits.shutdownDelayMs);
    })();
    return draining;
  };
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      await beginDraining();
      closing = true;
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      // Keep-alive connections become idle as their last answer goes out: close them as they do.
      const closeIdle = setInterval(() => server.closeIdleConnections(), idleSweepMs);
      server.closeIdleConnections();
      try {
        if ((await withDeadline(drained, limits.shutdownTimeoutMs)) === "timeout") {
          (app.context as { shutdownCut?: boolean }).shutdownCut = true;
          server.closeAllConnections();
          await drained;
        }
      } finally {
        clearInterval(closeIdle);
      }
      // Cut requests are interrupted (EffectHandler.ts); wait for their handlers to unwind, so
      // nothing still runs on the runtime that onClose disposes.
      const unwound = running === 0 ? Promise.resolve() : new Promise<void>((resolve) => (allSettled = resolve));
      await withDeadline(unwound, limits.shutdownTimeoutMs);
      await options.onClose?.();
    })();
    return closed;
  };
  return { server, port, url: `http://${host}:${port}`, beginDraining, close };
};

/** While draining, how often connections that have become idle are closed. */
const idleSweepMs = 10;

/** Resolves with the promise's value, or "timeout" after `ms`, clearing the timer either way. */
const withDeadline = async <A>(promise: Promise<A>, ms: number): Promise<A | "timeout"> => {
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<"timeout">((resolve) => {
    timer = setTimeout(() => resolve("timeout"), ms);
  });
  try {
    return await Promise.race([promise, deadline]);
  } finally {
    clearTimeout(timer);
  }
};
