/**
 * Bearer JWT authentication: HS256 only, `sub` is a user id, `exp` required, and a token whose
 * epoch is older than the user's current epoch is refused. Every refusal is a 401 problem with
 * its own code and a `WWW-Authenticate: Bearer` challenge.
 */
import { SignJWT } from "jose";
import t from "tap";
import { Unauthorized } from "../../core/kernel/Errors.js";
import { mintToken, verifyToken } from "../../adapters/koa/Authentication.js";
import { aliceId, bobId, call, startTestApp, testSecret, tokenFor } from "./support.js";
import { whoAmI, whoAmIFromContext, publicPing } from "./routes.fixture.js";

const key = new TextEncoder().encode(testSecret);
const now = () => Math.floor(Date.now() / 1000);

t.test("authentication", async (t) => {
  // alice's tokens up to epoch 1 were revoked; bob was never revoked.
  const epochs: Record<string, number> = { [aliceId]: 2 };
  const app = await startTestApp(t, { routes: [whoAmI, whoAmIFromContext, publicPing], userEpochs: async (id) => ({ epoch: epochs[id] ?? 0, revokedAt: null }) });
  const me = (headers: Record<string, string> = {}) => call(`${app.url}/v1/me`, { headers });
  const bearer = (token: string) => ({ authorization: `Bearer ${token}` });

  t.test("a missing Authorization header answers 401 authentication_required with a Bearer challenge", async (t) => {
    const res = await me();
    t.equal(res.status, 401);
    t.match(res.contentType, /^application\/problem\+json/);
    t.equal(res.body.code, "authentication_required");
    t.equal(res.headers.get("www-authenticate"), "Bearer");
  });

  t.test("an expired token answers 401 token_expired", async (t) => {
    const res = await me(bearer(await mintToken({ secret: testSecret, userId: bobId, ttlSeconds: -60 })));
    t.equal(res.status, 401);
    t.equal(res.body.code, "token_expired");
    t.match(res.headers.get("www-authenticate") ?? "", /^Bearer error="invalid_token"/);
  });

  t.test("a token signed with another secret answers 401 invalid_token", async (t) => {
    const res = await me(bearer(await mintToken({ secret: "some-other-secret-entirely", userId: bobId, ttlSeconds: 60 })));
    t.equal(res.status, 401);
    t.equal(res.body.code, "invalid_token");
  });

  t.test("an expired token with a bad signature is invalid, not expired", async (t) => {
    const res = await me(bearer(await mintToken({ secret: "some-other-secret-entirely", userId: bobId, ttlSeconds: -60 })));
    t.equal(res.body.code, "invalid_token");
  });

  t.test("a token whose epoch is older than the user's answers 401 token_revoked", async (t) => {
    t.equal((await me(bearer(await tokenFor(aliceId, 1)))).body.code, "token_revoked");
    t.equal((await me(bearer(await tokenFor(aliceId)))).body.code, "token_revoked", "no epoch claim means epoch 0");
    const current = await me(bearer(await tokenFor(aliceId, 2)));
    t.equal(current.status, 200, "a token of the current epoch is accepted");
    t.same(current.body, { user_id: aliceId });
  });

  t.test("a valid token sets the principal to its subject", async (t) => {
    const res = await me(bearer(await tokenFor(bobId)));
    t.equal(res.status, 200);
    t.same(res.body, { user_id: bobId });
  });

  t.test("handlers read the caller from CurrentPrincipal", async (t) => {
    const res = await call(`${app.url}/v1/me/context`, { headers: bearer(await tokenFor(bobId)) });
    t.same(res.body, { scope: `user:${bobId}` });
  });

  t.test("a token whose subject is not a UUID answers 401 invalid_token", async (t) => {
    const token = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject("alice").setExpirationTime(now() + 60).sign(key);
    t.equal((await me(bearer(token))).body.code, "invalid_token");
  });

  t.test("a token without exp answers 401 invalid_token", async (t) => {
    const token = await new SignJWT({}).setProtectedHeader({ alg: "HS256" }).setSubject(bobId).sign(key);
    t.equal((await me(bearer(token))).body.code, "invalid_token");
  });

  t.test("a token signed with another algorithm answers 401 invalid_token", async (t) => {
    const token = await new SignJWT({}).setProtectedHeader({ alg: "HS512" }).setSubject(bobId).setExpirationTime(now() + 60).sign(key);
    t.equal((await me(bearer(token))).body.code, "invalid_token");
  });

  t.test("a non-Bearer Authorization answers 401 invalid_token", async (t) => {
    const res = await me({ authorization: "Basic YWxpY2U6cGFzcw==" });
    t.equal(res.status, 401);
    t.equal(res.body.code, "invalid_token");
  });

  t.test("a public route needs no token", async (t) => {
    t.equal((await call(`${app.url}/v1/public/ping`)).status, 200);
  });
});

t.test("verifyToken returns the user principal and rejects with Unauthorized reasons", async (t) => {
  t.same(await verifyToken(testSecret, await tokenFor(bobId)), { kind: "user", userId: bobId });
  const reasonOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return "accepted";
    } catch (error) {
      return error instanceof Unauthorized ? error.reason : "other";
    }
  };
  t.equal(await reasonOf(verifyToken(testSecret, "not.a.jwt")), "invalid");
  t.equal(await reasonOf(verifyToken(testSecret, await tokenFor(bobId, 0), async () => ({ epoch: 1, revokedAt: null }))), "revoked");
  t.equal(await reasonOf(verifyToken(testSecret, await tokenFor(bobId, 1), async () => ({ epoch: 1, revokedAt: null }))), "accepted");
});

t.test("a host can replace JWT authentication with its own middleware that sets the principal", async (t) => {
  const app = await startTestApp(t, {
    routes: [whoAmI],
    authentication: async (ctx, next) => {
      if (ctx.get("x-test-user") === "") throw new Unauthorized({ reason: "missing" });
      ctx.state.principal = { kind: "user", userId: ctx.get("x-test-user") };
      await next();
    },
  });
  t.same((await call(`${app.url}/v1/me`, { headers: { "x-test-user": bobId } })).body, { user_id: bobId });
  t.equal((await call(`${app.url}/v1/me`)).body.code, "authentication_required");
});

t.test("a token verified once is still checked on every use: refused under another secret, once revoked, and once expired", async (t) => {
  const reasonOf = async (p: Promise<unknown>) => {
    try {
      await p;
      return "accepted";
    } catch (error) {
      return error instanceof Unauthorized ? error.reason : "other";
    }
  };
  const token = await new SignJWT({ epoch: 3 })
    .setProtectedHeader({ alg: "HS256" })
    .setSubject(aliceId)
    .setExpirationTime(Math.floor(Date.now() / 1000) + 2)
    .sign(new TextEncoder().encode(testSecret));
  t.equal(await reasonOf(verifyToken(testSecret, token, async () => ({ epoch: 3, revokedAt: null }))), "accepted");
  t.equal(await reasonOf(verifyToken(testSecret, token, async () => ({ epoch: 3, revokedAt: null }))), "accepted", "again (remembered)");
  t.equal(await reasonOf(verifyToken(`${testSecret}-rotated`, token)), "invalid", "another secret verifies it anew");
  t.equal(await reasonOf(verifyToken(testSecret, token, async () => ({ epoch: 4, revokedAt: null }))), "revoked", "the epoch is read on every use");
  await new Promise((resolve) => setTimeout(resolve, 2_100));
  t.equal(await reasonOf(verifyToken(testSecret, token, async () => ({ epoch: 3, revokedAt: null }))), "expired", "a remembered token expires on time");
});
