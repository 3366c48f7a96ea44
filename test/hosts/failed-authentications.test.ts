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

const upgrade = async (url: string, token: string): Promise<{ status: number; body?: unknown }> => {
  try {
    const client = await TestClient.connect(url, { token });
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
