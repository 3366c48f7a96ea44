/**
 * The reference server refuses a realtime upgrade with the code HTTP gives the same token
 * (conventions.md, Authentication; adapters/ws/UpgradeAuthentication.ts keeps a verifier's
 * Unauthorized code): an expired token answers 401 `token_expired` (refresh it, then reconnect) and
 * a revoked one 401 `token_revoked` (sign in again), not `invalid_token` — SQLite and Postgres.
 *
 * Fails until hosts/Runtime.ts `jwtUpgradeAuthentication` rethrows verifyToken's Unauthorized
 * instead of answering null for every failure (notes of the adopt-rt session, (d)).
 */
import t from "tap";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { cli, expiredToken, forEachDialectConfig, hostSecret, startReferenceServer } from "../hosts/support.js";
import { TestClient } from "./fixtures.js";

const userId = "01a204ed-6296-76db-a32e-8d369dd5fe88";

const refusalOf = (url: string, token: string) =>
  TestClient.connect(url, { token }).then(
    (client) => (client.close(), { accepted: true }),
    (error: unknown) => error,
  );

forEachDialectConfig(t, "the upgrade answers an expired token 401 token_expired and a revoked one 401 token_revoked, as HTTP does", async (t, config) => {
  const { server } = await startReferenceServer(t, config);
  const url = `${server.url.replace("http", "ws")}/v1/realtime`;
  const expired = await expiredToken(userId, 0);
  const http = await fetch(`${server.url}/v1/notifications`, { headers: { Authorization: `Bearer ${expired}` } });
  t.equal(((await http.json()) as { code?: string }).code, "token_expired", "HTTP's answer");
  t.match(await refusalOf(url, expired), { status: 401, contentType: "application/problem+json", body: { code: "token_expired" } });

  const token = await mintToken({ secret: hostSecret, userId, ttlSeconds: 600 });
  await cli(config, ["revoke", "--user", userId]);
  const revokedHttp = await fetch(`${server.url}/v1/notifications`, { headers: { Authorization: `Bearer ${token}` } });
  t.equal(((await revokedHttp.json()) as { code?: string }).code, "token_revoked", "HTTP's answer");
  t.match(await refusalOf(url, token), { status: 401, contentType: "application/problem+json", body: { code: "token_revoked" } });
});
