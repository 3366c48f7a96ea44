/**
 * The reference server as an operator runs it: health, the token rules of the Authentication
 * convention (valid accepted; expired, badly signed and revoked each 401 problem+json), the
 * OpenAPI document, and revocation reaching live realtime sockets — on SQLite and Postgres.
 */
import t from "tap";
import WebSocket from "ws";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { expiredToken, forEachDialectConfig, hostSecret, startReferenceServer, testConfig } from "./support.js";

const userId = "01a204ed-6296-76db-a32e-8d369dd5fe87";

const problemOf = async (response: Response): Promise<Record<string, unknown>> => {
  const body = (await response.json()) as Record<string, unknown>;
  return { status: response.status, contentType: response.headers.get("content-type"), code: body.code, bodyStatus: body.status };
};

const revoke = (url: string, token: string): Promise<Response> =>
  fetch(`${url}/v1/sessions/revoke`, { method: "POST", headers: { Authorization: `Bearer ${token}` } });

t.test("the reference server answers health and readiness", (t) =>
  forEachDialectConfig(t, "health", async (t, config) => {
    const { server } = await startReferenceServer(t, config);
    const health = await fetch(`${server.url}/healthz`);
    t.equal(health.status, 200);
    t.same(await health.json(), { status: "ok" });
    const ready = await fetch(`${server.url}/readyz`);
    t.equal(ready.status, 200, "readiness pings the database");
  }),
);

t.test("a valid token is accepted; expired, badly signed and revoked tokens each answer 401 problem+json", (t) =>
  forEachDialectConfig(t, "token rules", async (t, config) => {
    const { server } = await startReferenceServer(t, config);
    const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
    const accepted = await revoke(server.url, token);
    t.equal(accepted.status, 200, "a fresh token is accepted");
    t.same(await accepted.json(), { user_id: userId, epoch: 1 });

    t.match(await problemOf(await revoke(server.url, token)), {
      status: 401,
      contentType: "application/problem+json",
      code: "token_revoked",
      bodyStatus: 401,
    }, "a token of an older epoch is refused once the epoch moved");

    const fresh = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600, epoch: 1 });
    t.equal((await revoke(server.url, fresh)).status, 200, "a token of the current epoch is accepted");

    const expired = await expiredToken(userId, 2);
    t.match(await problemOf(await revoke(server.url, expired)), { status: 401, code: "token_expired", contentType: "application/problem+json" });

    const forged = await mintToken({ secret: "another-secret-another-secret-another-secret", userId, ttlSeconds: 600, epoch: 2 });
    t.match(await problemOf(await revoke(server.url, forged)), { status: 401, code: "invalid_token", contentType: "application/problem+json" });

    t.match(await problemOf(await fetch(`${server.url}/v1/sessions/revoke`, { method: "POST" })), {
      status: 401,
      code: "authentication_required",
    });
    t.match(await problemOf(await fetch(`${server.url}/v1/nowhere`)), { status: 404, contentType: "application/problem+json" });
  }),
);

t.test("the OpenAPI 3.1 description and the docs page are served", async (t) => {
  const { server } = await startReferenceServer(t, await testConfig("sqlite", t));
  const document = (await (await fetch(`${server.url}/v1/openapi.json`)).json()) as { openapi: string; paths: Record<string, unknown> };
  t.equal(document.openapi, "3.1.0");
  t.ok(document.paths["/v1/sessions/revoke"], "module routes are described");
  const docs = await fetch(`${server.url}/v1/docs`);
  t.equal(docs.status, 200);
  t.match(docs.headers.get("content-type") ?? "", /text\/html/);
});

t.test("revoking sessions closes the user's realtime socket within a second", (t) =>
  forEachDialectConfig(t, "revocation reaches realtime", async (t, config) => {
    const { server } = await startReferenceServer(t, config);
    const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
    const socket = new WebSocket(`${server.url.replace("http", "ws")}/v1/realtime`, { headers: { Authorization: `Bearer ${token}` } });
    await new Promise<void>((resolve, reject) => {
      socket.once("open", () => resolve());
      socket.once("error", reject);
    });
    const closed = new Promise<number>((resolve) => socket.once("close", (code) => resolve(code)));
    const started = Date.now();
    t.equal((await revoke(server.url, token)).status, 200);
    const code = await Promise.race([closed, new Promise<number>((resolve) => setTimeout(() => resolve(-1), 1000))]);
    t.equal(code, 4401, "the socket is closed with the revoked code");
    const elapsed = Date.now() - started;
    t.ok(elapsed <= 1000, `within a second (${elapsed} ms)`);
  }),
);

t.test("a realtime socket closes (4401 token_expired) when its token expires, as HTTP then answers 401 token_expired", async (t) => {
  const { server } = await startReferenceServer(t, await testConfig("sqlite", t));
  const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 2 });
  const { exp } = JSON.parse(Buffer.from(token.split(".")[1]!, "base64url").toString()) as { exp: number };
  const socket = new WebSocket(`${server.url.replace("http", "ws")}/v1/realtime`, { headers: { Authorization: `Bearer ${token}` } });
  await new Promise<void>((resolve, reject) => {
    socket.once("open", () => resolve());
    socket.once("error", reject);
  });
  const closed = await Promise.race([
    new Promise<{ code: number; reason: string }>((resolve) => socket.once("close", (code, reason) => resolve({ code, reason: reason.toString() }))),
    new Promise<null>((resolve) => setTimeout(() => resolve(null), 5_000)),
  ]);
  const closedAt = Date.now();
  t.same(closed, { code: 4401, reason: "token_expired" }, "closed with the token_expired reason");
  t.ok(closedAt >= exp * 1000, "not before the token's exp");
  t.ok(closedAt - exp * 1000 < 1_000, `soon after it (${closedAt - exp * 1000} ms)`);
  const http = await fetch(`${server.url}/v1/notifications`, { headers: { Authorization: `Bearer ${token}` } });
  t.equal(((await http.json()) as { code?: string }).code, "token_expired", "the same token over HTTP is expired too");
});

t.test("the realtime upgrade refuses a missing or forged token with 401", async (t) => {
  const { server } = await startReferenceServer(t, await testConfig("sqlite", t));
  const statusOf = (headers: Record<string, string>) =>
    new Promise<number>((resolve) => {
      const socket = new WebSocket(`${server.url.replace("http", "ws")}/v1/realtime`, { headers });
      socket.once("unexpected-response", (_req, res) => {
        resolve(res.statusCode ?? 0);
        socket.terminate();
      });
      socket.once("open", () => {
        resolve(101);
        socket.close();
      });
      socket.once("error", () => undefined);
    });
  t.equal(await statusOf({}), 401);
  const forged = await mintToken({ secret: "another-secret-another-secret-another-secret", userId, ttlSeconds: 600 });
  t.equal(await statusOf({ Authorization: `Bearer ${forged}` }), 401);
});
