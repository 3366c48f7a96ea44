/** Rate limits: over the budget a caller gets 429 rate_limited with Retry-After; budgets are per principal. */
import t from "tap";
import { aliceId, bobId, call, startTestApp, tokenFor } from "./support.js";
import { publicPing, whoAmI } from "./routes.fixture.js";

t.test("a caller over its budget gets 429 rate_limited with Retry-After, per principal", async (t) => {
  const app = await startTestApp(t, { routes: [whoAmI, publicPing], limits: { rateLimitPoints: 3, rateLimitWindowSeconds: 60 } });
  const alice = { authorization: `Bearer ${await tokenFor(aliceId)}` };
  const bob = { authorization: `Bearer ${await tokenFor(bobId)}` };
  for (let i = 0; i < 3; i++) t.equal((await call(`${app.url}/v1/me`, { headers: alice })).status, 200, `request ${i + 1} within budget`);
  const limited = await call(`${app.url}/v1/me`, { headers: alice });
  t.equal(limited.status, 429);
  t.match(limited.contentType, /^application\/problem\+json/);
  t.equal(limited.body.code, "rate_limited");
  const retryAfter = Number(limited.headers.get("retry-after"));
  t.ok(Number.isInteger(retryAfter) && retryAfter >= 1 && retryAfter <= 60, "Retry-After is a whole number of seconds within the window");
  t.equal((await call(`${app.url}/v1/me`, { headers: bob })).status, 200, "another principal has its own budget");
});

t.test("anonymous callers are limited by client IP", async (t) => {
  const app = await startTestApp(t, { routes: [publicPing], limits: { rateLimitPoints: 2, rateLimitWindowSeconds: 60 } });
  t.equal((await call(`${app.url}/v1/public/ping`)).status, 200);
  t.equal((await call(`${app.url}/v1/public/ping`)).status, 200);
  const limited = await call(`${app.url}/v1/public/ping`);
  t.equal(limited.status, 429);
  t.equal(limited.body.code, "rate_limited");
  t.ok(limited.headers.get("retry-after"));
});

// Spec (payments, Limits): "Rate limits apply by credential, merchant, IP and risk signal."
t.test("authenticated callers from one IP share the IP's budget as well as spending their own", async (t) => {
  const app = await startTestApp(t, { routes: [whoAmI], limits: { rateLimitPoints: 3, rateLimitIpPoints: 4, rateLimitWindowSeconds: 60 } });
  const alice = { authorization: `Bearer ${await tokenFor(aliceId)}` };
  const bob = { authorization: `Bearer ${await tokenFor(bobId)}` };
  for (let i = 0; i < 3; i++) t.equal((await call(`${app.url}/v1/me`, { headers: alice })).status, 200, `alice's request ${i + 1}`);
  t.equal((await call(`${app.url}/v1/me`, { headers: bob })).status, 200, "bob has a budget of his own, and the IP has one point left");
  const limited = await call(`${app.url}/v1/me`, { headers: bob });
  t.equal(limited.status, 429, "the IP's budget is spent by both callers together");
  t.equal(limited.body.code, "rate_limited");
  t.ok(Number(limited.headers.get("retry-after")) >= 1);
});

// Spec (payments, Limits: "Rate limits apply by credential, merchant, IP and risk signal"):
// a request whose credential fails never reached the per-caller limit, so guessing credentials
// was unbounded. Failures now spend a budget of the client IP.
t.test("an IP past its failed authentications gets 429 rate_limited with Retry-After, even with a good credential, until the window passes", async (t) => {
  const app = await startTestApp(t, { routes: [whoAmI, publicPing], limits: { failedAuthenticationPoints: 3, failedAuthenticationWindowSeconds: 60 } });
  const alice = { authorization: `Bearer ${await tokenFor(aliceId)}` };
  t.equal((await call(`${app.url}/v1/me`, { headers: alice })).status, 200, "a good credential");
  for (let i = 0; i < 3; i++) {
    t.equal((await call(`${app.url}/v1/me`, { headers: { authorization: `Bearer guess-${i}` } })).status, 401, `failed authentication ${i + 1} answers 401`);
  }
  const guessing = await call(`${app.url}/v1/me`, { headers: { authorization: "Bearer guess-4" } });
  t.equal(guessing.status, 429, "the next guess is refused before it is checked");
  t.equal(guessing.body.code, "rate_limited");
  const retryAfter = Number(guessing.headers.get("retry-after"));
  t.ok(retryAfter >= 1 && retryAfter <= 60, "Retry-After within the window");
  t.equal((await call(`${app.url}/v1/me`, { headers: alice })).status, 429, "every credential from that IP waits");
  t.equal((await call(`${app.url}/v1/public/ping`)).status, 200, "a route without authentication still answers");
});

t.test("a request that carries no credential spends nothing of the failed-authentication budget (only presented credentials that fail do)", async (t) => {
  const app = await startTestApp(t, { routes: [whoAmI], limits: { failedAuthenticationPoints: 2, failedAuthenticationWindowSeconds: 60 } });
  const alice = { authorization: `Bearer ${await tokenFor(aliceId)}` };
  for (let i = 0; i < 5; i++) {
    const signedOut = await call(`${app.url}/v1/me`);
    t.equal(signedOut.status, 401, `a signed-out request ${i + 1} answers 401`);
    t.equal(signedOut.body.code, "authentication_required");
  }
  t.equal((await call(`${app.url}/v1/me`, { headers: alice })).status, 200, "a signed-in user at that address is not locked out");
  t.equal((await call(`${app.url}/v1/me`, { headers: { authorization: "Bearer guess-1" } })).status, 401);
  t.equal((await call(`${app.url}/v1/me`, { headers: { authorization: "Bearer guess-2" } })).status, 401);
  t.equal((await call(`${app.url}/v1/me`, { headers: alice })).status, 429, "presented credentials that fail still count");
});

t.test("successful authentications spend nothing of the failed-authentication budget", async (t) => {
  const app = await startTestApp(t, { routes: [whoAmI], limits: { failedAuthenticationPoints: 2, failedAuthenticationWindowSeconds: 60 } });
  const alice = { authorization: `Bearer ${await tokenFor(aliceId)}` };
  for (let i = 0; i < 5; i++) t.equal((await call(`${app.url}/v1/me`, { headers: alice })).status, 200, `request ${i + 1}`);
  t.equal((await call(`${app.url}/v1/me`, { headers: { authorization: "Bearer bad" } })).status, 401, "one failure is within the budget");
  t.equal((await call(`${app.url}/v1/me`, { headers: alice })).status, 200);
});
