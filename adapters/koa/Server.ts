/**
 * Starting and stopping the HTTP server. `close()` drains: it stops accepting connections,
 * lets in-flight requests finish (answering them with `Connection: close`), closes idle
 * keep-alive connections, cuts whatever is left after `Limits.shutdownTimeoutMs`, and only
 * then runs `onClose` (where the host disposes its ManagedRuntime).
 */
import { createServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import type Koa from "koa";
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
}

/** A listening server. */
export interface RunningHttpServer {
  readonly server: Server;
  readonly port: number;
  readonly url: string;
  /** Drains and stops the server, then runs `onClose`. Safe to call more than once. */
  readonly close: () => Promise<void>;
}

/** Starts `app` on `host:port` and resolves once it is listening. */
export const startHttpServer = async (app: Koa, options: HttpServerOptions): Promise<RunningHttpServer> => {
  const limits = resolveLimits(options.limits);
  const host = options.host ?? "127.0.0.1";
  const handle = app.callback();
  // Koa's handler promises, so shutdown can wait for handlers even after their connection is cut.
  const handlers = new Set<Promise<void>>();
  let closing = false;
  const server = createServer(
    {
      requestTimeout: limits.requestTimeoutMs,
      headersTimeout: Math.min(60_000, limits.requestTimeoutMs),
    },
    (req, res) => {
      if (closing) res.setHeader("Connection", "close");
      res.on("close", () => {
        // The connection that carried it is idle now; while draining, close it at once.
        if (closing) setImmediate(() => server.closeIdleConnections());
      });
      const handled: Promise<void> = Promise.resolve(handle(req, res)).then(
        () => void handlers.delete(handled),
        () => void handlers.delete(handled),
      );
      handlers.add(handled);
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
  let closed: Promise<void> | undefined;
  const close = (): Promise<void> => {
    closed ??= (async () => {
      closing = true;
      const drained = new Promise<void>((resolve) => server.close(() => resolve()));
      server.closeIdleConnections();
      if ((await withDeadline(drained, limits.shutdownTimeoutMs)) === "timeout") {
        server.closeAllConnections();
        await drained;
      }
      // Cut requests are interrupted (EffectHandler.ts); wait for their handlers to unwind, so
      // nothing still runs on the runtime that onClose disposes.
      await withDeadline(Promise.allSettled([...handlers]), limits.shutdownTimeoutMs);
      await options.onClose?.();
    })();
    return closed;
  };
  return { server, port, url: `http://${host}:${port}`, close };
};

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
