/**
 * Test support for the Koa host base: a real server on 127.0.0.1 port 0 with a captured log
 * stream, and helpers to read problem+json answers.
 */
import { Writable } from "node:stream";
import { Layer, ManagedRuntime } from "effect";
import type { Middleware } from "koa";
import { createKoaApp, type KoaAppOptions } from "../../adapters/koa/App.js";
import { jwtAuthentication, mintToken, type UserEpochLookup } from "../../adapters/koa/Authentication.js";
import type { HostRuntime } from "../../adapters/koa/EffectHandler.js";
import { createLogger } from "../../adapters/koa/Logging.js";
import { startHttpServer, type RunningHttpServer } from "../../adapters/koa/Server.js";
import type { Route } from "../../adapters/koa/Route.js";

/** The HS256 secret of every test app. */
export const testSecret = "koa-test-secret-that-is-long-enough-for-hs256";

/** A user id that tokens in tests are minted for. */
export const aliceId = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5b";
/** A second user, for per-principal budgets and scopes. */
export const bobId = "0190a1b2-c3d4-7e5f-8a9b-0c1d2e3f4a5c";

/** A valid token for `userId`. */
export const tokenFor = (userId: string, epoch?: number): Promise<string> =>
  mintToken({ secret: testSecret, userId, ttlSeconds: 600, ...(epoch === undefined ? {} : { epoch }) });

/** Anything a test may hand to `createKoaApp`, with test defaults for the rest. */
export interface TestAppOptions extends Partial<Omit<KoaAppOptions, "logger" | "runtime">> {
  readonly routes: ReadonlyArray<Route>;
  readonly runtime?: HostRuntime & { dispose(): Promise<void> };
  readonly userEpochs?: UserEpochLookup;
  readonly authentication?: Middleware;
  readonly onClose?: () => Promise<void>;
}

/** A running test app: its base URL, the server, and every log line written so far. */
export interface TestApp {
  readonly url: string;
  readonly server: RunningHttpServer;
  readonly logText: () => string;
  readonly logLines: () => ReadonlyArray<Record<string, unknown>>;
}

/** Starts a test app and closes it at `t`'s teardown. */
export const startTestApp = async (
  t: { teardown: (fn: () => unknown) => unknown },
  options: TestAppOptions,
): Promise<TestApp> => {
  let text = "";
  const destination = new Writable({
    write(chunk, _encoding, callback) {
      text += String(chunk);
      callback();
    },
  });
  const logger = createLogger({ level: "info", destination });
  const runtime = options.runtime ?? ManagedRuntime.make(Layer.empty);
  const app = createKoaApp({
    ...options,
    logger,
    runtime,
    authentication:
      options.authentication ??
      jwtAuthentication({ secret: testSecret, ...(options.userEpochs ? { userEpochs: options.userEpochs } : {}) }),
  });
  const server = await startHttpServer(app, {
    port: 0,
    ...(options.limits ? { limits: options.limits } : {}),
    onClose: async () => {
      await options.onClose?.();
      await runtime.dispose();
    },
  });
  t.teardown(() => server.close());
  return {
    url: server.url,
    server,
    logText: () => text,
    logLines: () =>
      text
        .split("\n")
        .filter((line) => line.trim() !== "")
        .map((line) => JSON.parse(line) as Record<string, unknown>),
  };
};

/** A response read whole: status, headers and parsed body. */
export interface ReadResponse {
  readonly status: number;
  readonly headers: Headers;
  readonly contentType: string;
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
  readonly body: any;
  readonly text: string;
}

/** Fetches and reads the whole answer. */
export const call = async (url: string, init: RequestInit = {}): Promise<ReadResponse> => {
  const res = await fetch(url, init);
  const text = await res.text();
  let body: unknown = undefined;
  try {
    body = text === "" ? undefined : JSON.parse(text);
  } catch {
    body = undefined;
  }
  return { status: res.status, headers: res.headers, contentType: res.headers.get("content-type") ?? "", body, text };
};

/** JSON request init with a bearer token. */
export const jsonInit = (method: string, body: unknown, headers: Record<string, string> = {}): RequestInit => ({
  method,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});
