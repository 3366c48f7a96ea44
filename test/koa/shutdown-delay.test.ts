/**
 * Graceful shutdown behind a load balancer: with `Limits.shutdownDelayMs`, close() first marks
 * the server draining, so /readyz answers 503 `draining` while requests are still served, and only
 * after the delay drains and closes as before. Without it (the default 0) close() drains at once.
 * The delay's wait is the test's own promise: nothing here depends on wall time.
 */
import { Layer, ManagedRuntime } from "effect";
import t from "tap";
import { createKoaApp } from "../../adapters/koa/App.js";
import { createLogger } from "../../adapters/koa/Logging.js";
import { defaultLimits, resolveLimits } from "../../adapters/koa/Limits.js";
import { startHttpServer } from "../../adapters/koa/Server.js";

const startApp = async (t: { teardown: (fn: () => unknown) => unknown }, shutdownDelayMs: number | undefined) => {
  const waits: number[] = [];
  let endDelay!: () => void;
  const delayEnded = new Promise<void>((resolve) => (endDelay = resolve));
  const app = createKoaApp({ logger: createLogger({ level: "silent" }), runtime: ManagedRuntime.make(Layer.empty), routes: [] });
  let closed = false;
  const server = await startHttpServer(app, {
    port: 0,
    ...(shutdownDelayMs !== undefined ? { limits: { shutdownDelayMs } } : {}),
    wait: (ms) => {
      waits.push(ms);
      return delayEnded;
    },
    onClose: async () => void (closed = true),
  });
  t.teardown(() => {
    endDelay();
    return server.close();
  });
  return { server, waits, endDelay, isClosed: () => closed };
};

t.test("during the shutdown delay /readyz answers 503 draining and requests are still served; after it the server closes", async (t) => {
  const { server, waits, endDelay, isClosed } = await startApp(t, 5_000);
  t.equal((await fetch(`${server.url}/readyz`)).status, 200, "ready before the shutdown");
  const closing = server.close();
  await new Promise((resolve) => setImmediate(resolve));
  t.same(waits, [5_000], "close() waits the configured delay first");
  const readyz = await fetch(`${server.url}/readyz`);
  const body = (await readyz.json()) as { code?: string };
  t.equal(readyz.status, 503, "/readyz: 503 while draining");
  t.match(readyz.headers.get("content-type") ?? "", /^application\/problem\+json/);
  t.equal(body.code, "draining");
  const served = await fetch(`${server.url}/healthz`);
  t.equal(served.status, 200, "a request during the delay is served");
  t.equal(isClosed(), false, "not closed during the delay");
  t.equal(server.server.listening, true, "still listening during the delay");
  endDelay();
  await closing;
  t.equal(isClosed(), true, "closed after the delay");
  t.equal(server.server.listening, false, "the listener is closed");
  await t.rejects(fetch(`${server.url}/healthz`), "new connections are refused");
});

t.test("without a shutdown delay (the default 0) close() drains at once", async (t) => {
  const { server, waits, isClosed } = await startApp(t, undefined);
  await server.close();
  t.same(waits, [], "no wait");
  t.equal(isClosed(), true);
  t.equal(defaultLimits.shutdownDelayMs, 0, "the documented default is 0");
});

t.test("Limits.shutdownDelayMs accepts 0 and refuses a negative or fractional delay", async (t) => {
  t.equal(resolveLimits({ shutdownDelayMs: 0 }).shutdownDelayMs, 0);
  t.throws(() => resolveLimits({ shutdownDelayMs: -1 }), /shutdownDelayMs/);
  t.throws(() => resolveLimits({ shutdownDelayMs: 1.5 }), /shutdownDelayMs/);
});
