/**
 * Logs never carry credentials: bearer tokens, cookies, API keys, and fields named like token,
 * secret, password, api_key, client_secret, payment_method or card are redacted at any depth up
 * to the configured one; the access log has one line per request without the query string.
 */
import { Writable } from "node:stream";
import { Effect, Schema } from "effect";
import t from "tap";
import { createLogger, redactedText, redactPaths, sensitiveKeys } from "../../adapters/koa/Logging.js";
import { defineRoute } from "../../adapters/koa/Route.js";
import { aliceId, call, jsonInit, startTestApp, tokenFor } from "./support.js";

const capture = () => {
  let text = "";
  const destination = new Writable({
    write(chunk, _e, cb) {
      text += String(chunk);
      cb();
    },
  });
  return { logger: createLogger({ destination }), text: () => text };
};

t.test("every field named like a secret is redacted wherever it appears", async (t) => {
  const { logger, text } = capture();
  const secrets: Record<string, string> = {};
  const nested: Record<string, unknown> = {};
  for (const key of sensitiveKeys) {
    secrets[key] = `top-${key}-value`;
    nested[key] = `deep-${key}-value`;
  }
  logger.info({ ...secrets, a: { b: { c: { ...nested } } }, list: [{ token: "in-array-token" }], safe: "visible" }, "probe");
  logger.flush();
  const out = text();
  t.match(out, /visible/, "ordinary fields are logged");
  for (const key of sensitiveKeys) {
    t.notMatch(out, `top-${key}-value`, `${key} at the top is redacted`);
    t.notMatch(out, `deep-${key}-value`, `${key} three levels deep is redacted`);
  }
  t.notMatch(out, /in-array-token/);
  t.match(out, redactedText);
  t.ok(redactPaths.includes("req.headers.authorization"), "the header paths are listed");
});

t.test("requests log one access line each and never the bearer token or a body secret", async (t) => {
  const echo = defineRoute({
    method: "POST",
    path: "/v1/shares/:share_token/claim",
    operationId: "claimShare",
    summary: "Logs its input at debug and info",
    tags: ["test"],
    auth: "required",
    idempotency: "none",
    body: Schema.Struct({ secret: Schema.String, note: Schema.String }),
    responses: { 200: Schema.Struct({ ok: Schema.Boolean }) },
    handler: () => Effect.succeed({ status: 200, body: { ok: true } }),
  });
  const app = await startTestApp(t, { routes: [echo] });
  const token = await tokenFor(aliceId);
  const res = await call(
    `${app.url}/v1/shares/share-tok-123456/claim?token=query-secret-999&x=1`,
    jsonInit("POST", { secret: "body-secret-777", note: "hello" }, { authorization: `Bearer ${token}`, cookie: "sid=cookie-secret-555" }),
  );
  t.equal(res.status, 200);
  const failed = await call(`${app.url}/v1/shares/share-tok-123456/claim`, jsonInit("POST", { secret: "body-secret-888" }, { authorization: "Bearer not-a-real-token-444" }));
  t.equal(failed.status, 401);
  const text = app.logText();
  for (const secret of [token, "not-a-real-token-444", "body-secret-777", "body-secret-888", "query-secret-999", "cookie-secret-555", "share-tok-123456"]) {
    t.notOk(text.includes(secret), `the log does not contain ${secret.slice(0, 12)}...`);
  }
  const access = app.logLines().filter((l) => l.msg === "request");
  t.equal(access.length, 2, "one access line per request");
  const first = access[0] as Record<string, unknown>;
  t.equal(first.method, "POST");
  t.equal(first.path, `/v1/shares/${redactedText}/claim`, "a token in the path is masked");
  t.equal(first.status, 200);
  t.type(first.duration_ms, "number");
  t.equal(first.request_id, res.headers.get("x-request-id"));
  t.same(first.query, { token: redactedText, x: "1" }, "query values are logged only after redaction");
});

t.test("no credential in the path is logged whatever the method or status: a 405 masks the route's token parameter, a 404 masks credential-shaped segments", async (t) => {
  const claim = defineRoute({
    method: "POST",
    path: "/v1/shares/:share_token/claim",
    operationId: "claimShare405",
    summary: "A route with a token in its path",
    tags: ["test"],
    auth: "none",
    idempotency: "none",
    responses: { 204: Schema.Void },
    handler: () => Effect.succeed({ status: 204 as const }),
  });
  const app = await startTestApp(t, { routes: [claim] });
  const shareToken = "share-tok-405-abcdef";
  const grant = `eyJ2IjoxLCJrIjoi${"x".repeat(60)}.signature-part-long-enough`;
  const clientSecret = "pi_0190a1b2c3d4_secret_abcdefghijklmnop";
  t.equal((await call(`${app.url}/v1/shares/${shareToken}/claim`, { method: "DELETE" })).status, 405, "another method answers 405");
  t.equal((await call(`${app.url}/v1/blobs/${grant}/x`, { method: "GET" })).status, 404, "an unknown path answers 404");
  t.equal((await call(`${app.url}/v1/payment-intents/${clientSecret}`, { method: "GET" })).status, 404);
  const text = app.logText();
  for (const secret of [shareToken, grant, clientSecret]) t.notOk(text.includes(secret), `the log does not contain ${secret.slice(0, 14)}...`);
  const paths = app.logLines().filter((l) => l.msg === "request").map((l) => (l as Record<string, unknown>).path);
  t.same(paths, [`/v1/shares/${redactedText}/claim`, `/v1/blobs/${redactedText}/x`, `/v1/payment-intents/${redactedText}`], "the rest of each path is kept");
});
