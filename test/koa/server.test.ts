/**
 * The server's lifecycle: health probes, readiness, and graceful shutdown that lets in-flight
 * requests finish before the runtime is disposed.
 */
import { Effect, Schema } from "effect";
import t from "tap";
import { defineRoute } from "../../adapters/koa/Route.js";
import { call, startTestApp } from "./support.js";

t.test("GET /healthz answers 200 ok without authentication", async (t) => {
  const app = await startTestApp(t, { routes: [] });
  const res = await call(`${app.url}/healthz`);
  t.equal(res.status, 200);
  t.same(res.body, { status: "ok" });
});

t.test("GET /readyz answers 200 when the readiness check passes and 503 not_ready when it fails", async (t) => {
  let ready = true;
  const app = await startTestApp(t, {
    routes: [],
    readiness: async () => {
      if (!ready) throw new Error("connect ECONNREFUSED postgres://admin:s3cr3t@db:5432");
    },
  });
  t.equal((await call(`${app.url}/readyz`)).status, 200);
  ready = false;
  const res = await call(`${app.url}/readyz`);
  t.equal(res.status, 503);
  t.match(res.contentType, /^application\/problem\+json/);
  t.equal(res.body.code, "not_ready");
  t.notMatch(res.text, /s3cr3t|ECONNREFUSED/, "the cause stays in the log");
});

t.test("close() lets an in-flight request finish, refuses new connections, then runs onClose", async (t) => {
  let release!: () => void;
  const released = new Promise<void>((resolve) => (release = resolve));
  let entered!: () => void;
  const inHandler = new Promise<void>((resolve) => (entered = resolve));
  const events: string[] = [];
  const slow = defineRoute({
    method: "GET",
    path: "/v1/slow",
    operationId: "slow",
    summary: "Waits until the test releases it",
    tags: ["test"],
    auth: "none",
    idempotency: "none",
    responses: { 200: Schema.Struct({ done: Schema.Boolean }) },
    handler: () =>
      Effect.gen(function* () {
        entered();
        yield* Effect.promise(() => released);
        events.push("handler finished");
        return { status: 200, body: { done: true } };
      }),
  });
  const app = await startTestApp(t, { routes: [slow], onClose: async () => void events.push("onClose") });
  const inFlight = call(`${app.url}/v1/slow`);
  await inHandler;
  const closing = app.server.close();
  // A new connection is refused once closing started.
  const refused = await fetch(`${app.url}/healthz`, { headers: { connection: "close" } }).then(
    () => false,
    () => true,
  );
  t.ok(refused, "a new connection is refused while draining");
  t.same(events, [], "onClose waits for the in-flight request");
  release();
  const res = await inFlight;
  t.equal(res.status, 200);
  t.same(res.body, { done: true });
  await closing;
  t.same(events, ["handler finished", "onClose"], "the runtime is disposed only after the request finished");
  t.equal(app.server.server.listening, false);
});

// A write is interrupted only by shutdown, not by its client leaving (EffectHandler.ts); a read by both.
for (const method of ["GET", "POST"] as const) {
  t.test(`close() cuts ${method} requests that outlive the shutdown timeout, interrupts them, and still runs onClose`, async (t) => {
    const events: string[] = [];
    let entered!: () => void;
    const inHandler = new Promise<void>((resolve) => (entered = resolve));
    const stuck = defineRoute({
      method,
      path: "/v1/stuck",
      operationId: "stuck",
      summary: "Never finishes",
      tags: ["test"],
      auth: "none",
      idempotency: "none",
      responses: { 200: null },
      handler: () =>
        Effect.sync(() => entered()).pipe(
          Effect.zipRight(Effect.never),
          Effect.onInterrupt(() => Effect.sync(() => void events.push("handler interrupted"))),
        ),
    });
    const app = await startTestApp(t, { routes: [stuck], limits: { shutdownTimeoutMs: 200 }, onClose: async () => void events.push("onClose") });
    const pending = fetch(`${app.url}/v1/stuck`, { method }).then(
      () => "answered",
      () => "cut",
    );
    await inHandler;
    await app.server.close();
    t.equal(await pending, "cut", "the stuck request's connection was cut");
    t.same(events.sort(), ["handler interrupted", "onClose"]);
  });
}
