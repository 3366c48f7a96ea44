/**
 * Failed authentications are limited per client IP (docs/decisions.md, sixteenth session): the
 * reference server keeps one budget for its HTTP routes and its realtime upgrade, so a guesser
 * cannot switch to the other door. Past the budget, a credential from that IP — even a good one —
 * answers 429 rate_limited with Retry-After before it is checked.
 */
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { TestClient, type RefusedUpgrade } from "../ws/fixtures.js";
import { hostSecret, startReferenceServer, testConfig } from "./support.js";

const upgrade = async (url: string, token: string, headers?: Record<string, string>): Promise<{ status: number; body?: unknown }> => {
  try {
    const client = await TestClient.connect(url, { token, ...(headers !== undefined ? { headers } : {}) });
    client.close();
    return { status: 101 };
  } catch (error) {
    const refused = error as RefusedUpgrade;
    return { status: refused.status, body: refused.body };
  }
};

t.test("HTTP and realtime failures spend one per-IP budget; past it both doors answer 429 even to a good token", async (t) => {
  const config = await testConfig("sqlite", t);
  const { server } = await startReferenceServer(t, config, { limits: { failedAuthenticationPoints: 3, failedAuthenticationWindowSeconds: 60 } });
  const realtimeUrl = `${server.url.replace(/^http/, "ws")}/v1/realtime`;
  const good = await mintToken({ secret: hostSecret, userId: "0b9f7c2e-6a43-4d7e-9a5e-3c1f2b8d4e60", ttlSeconds: 600 });
  t.equal((await upgrade(realtimeUrl, good)).status, 101, "a good token opens the realtime connection");
  const me = (token: string) => fetch(`${server.url}/v1/notifications`, { headers: { Authorization: `Bearer ${token}` } });
  t.equal((await me(good)).status, 200, "a good token is accepted over HTTP");

  t.equal((await me("guess-1")).status, 401, "HTTP failure 1");
  t.equal((await upgrade(realtimeUrl, "guess-2")).status, 401, "realtime failure 2");
  t.equal((await me("guess-3")).status, 401, "HTTP failure 3");

  const http = await me(good);
  t.equal(http.status, 429, "over HTTP a good token now waits");
  t.ok(Number(http.headers.get("retry-after")) >= 1, "with Retry-After");
  const realtime = await upgrade(realtimeUrl, good);
  t.equal(realtime.status, 429, "so does the realtime upgrade");
  t.match(realtime.body, { code: "rate_limited" });
});

t.test("behind TRUST_PROXY=1 proxy the budget is the forwarded client's: one client's failures do not lock out another, and a client cannot forge its address", async (t) => {
  const config = await testConfig("sqlite", t, { TRUST_PROXY: "1" });
  const { server } = await startReferenceServer(t, config, { limits: { failedAuthenticationPoints: 3, failedAuthenticationWindowSeconds: 60 } });
  const realtimeUrl = `${server.url.replace(/^http/, "ws")}/v1/realtime`;
  const good = await mintToken({ secret: hostSecret, userId: "0b9f7c2e-6a43-4d7e-9a5e-3c1f2b8d4e60", ttlSeconds: 600 });
  // The proxy appends the address it saw; whatever the client sent comes before it.
  const from = (client: string, sent?: string) => ({ "X-Forwarded-For": sent === undefined ? client : `${sent}, ${client}` });
  const me = (token: string, headers: Record<string, string>) => fetch(`${server.url}/v1/notifications`, { headers: { Authorization: `Bearer ${token}`, ...headers } });

  t.equal((await me("guess-1", from("203.0.113.9"))).status, 401);
  t.equal((await upgrade(realtimeUrl, "guess-2", from("203.0.113.9"))).status, 401);
  t.equal((await me("guess-3", from("203.0.113.9", "198.51.100.7"))).status, 401, "a forged address in front counts against the real one");
  t.equal((await me(good, from("203.0.113.9"))).status, 429, "the guessing client is refused");
  t.equal((await upgrade(realtimeUrl, good, from("203.0.113.9"))).status, 429, "at both doors");
  t.equal((await me(good, from("198.51.100.7"))).status, 200, "another client behind the same proxy is not locked out");
  t.equal((await upgrade(realtimeUrl, good, from("198.51.100.7"))).status, 101, "nor at the realtime door");
});

t.test("TRUST_PROXY is a count of proxies from 0 to 10", async (t) => {
  await t.rejects(testConfig("sqlite", t, { TRUST_PROXY: "yes" }), /TRUST_PROXY/);
  await t.rejects(testConfig("sqlite", t, { TRUST_PROXY: "11" }), /TRUST_PROXY/);
  t.equal((await testConfig("sqlite", t)).trustedProxies, 0, "none by default: the client is the TCP peer");
});
