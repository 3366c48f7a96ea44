/**
 * The reference server with an identity provider's public key (AUTH_JWT_PUBLIC_KEY, with
 * AUTH_JWT_ISSUER and AUTH_JWT_AUDIENCE), on SQLite and Postgres: the provider's tokens work on
 * HTTP and on the realtime upgrade; revoking the user's sessions refuses the tokens issued before
 * and accepts those issued after; without AUTH_JWT_SECRET no HS256 token is accepted and the CLI
 * mints none.
 */
import { generateKeyPairSync, randomUUID, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import t from "tap";
import WebSocket from "ws";
import { mintToken } from "../../adapters/koa/Authentication.js";
import { DEVELOPMENT_JWT_SECRET } from "../../hosts/Config.js";
import { cli, forEachDialectConfig, startReferenceServer, testConfig } from "./support.js";

const { publicKey, privateKey } = generateKeyPairSync("ec", { namedCurve: "P-256" });
const issuer = "https://id.example.com/";
const audience = "domainkit-api";
const providerEnv = {
  AUTH_JWT_PUBLIC_KEY: (publicKey.export({ type: "spki", format: "pem" }) as string).replace(/\n/g, "\\n"),
  AUTH_JWT_ISSUER: issuer,
  AUTH_JWT_AUDIENCE: audience,
  AUTH_JWT_SECRET: "",
};

const providerToken = (userId: string, key: KeyObject = privateKey, claims: Record<string, unknown> = { iss: issuer, aud: audience }) => {
  const now = Math.floor(Date.now() / 1000);
  return new SignJWT(claims).setProtectedHeader({ alg: "ES256" }).setSubject(userId).setIssuedAt(now).setExpirationTime(now + 600).sign(key);
};

const activity = (url: string, token: string) => fetch(`${url}/v1/activity`, { headers: { authorization: `Bearer ${token}` } });

const upgrade = (url: string, token: string): Promise<string> =>
  new Promise((resolve) => {
    const socket = new WebSocket(`${url.replace("http", "ws")}/v1/realtime`, { headers: { authorization: `Bearer ${token}` } });
    socket.once("open", () => {
      socket.close();
      resolve("open");
    });
    socket.once("unexpected-response", (_request, response) => resolve(String(response.statusCode)));
    socket.once("error", () => resolve("error"));
  });

t.test("an identity provider's tokens: accepted, revoked by issue time, refused when signed otherwise", (t) =>
  forEachDialectConfig(t, "provider tokens", async (t, base, dialect) => {
    const config = await testConfig(dialect, t, { ...providerEnv, ...(base.databaseUrl ? { DATABASE_URL: base.databaseUrl } : {}) });
    const { server } = await startReferenceServer(t, config);
    const userId = randomUUID();
    const first = await providerToken(userId);
    t.equal((await activity(server.url, first)).status, 200, "the provider's token is accepted");
    t.equal(await upgrade(server.url, first), "open", "and opens a realtime socket");
    t.equal((await activity(server.url, await providerToken(userId, privateKey, { iss: issuer, aud: "another-app" }))).status, 401, "another application's token");
    t.equal((await activity(server.url, await providerToken(userId, generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey))).status, 401, "another key's token");
    const hs256 = await mintToken({ secret: DEVELOPMENT_JWT_SECRET, userId, ttlSeconds: 600 });
    t.equal((await activity(server.url, hs256)).status, 401, "HS256 with the documented secret is off");

    const revoked = await fetch(`${server.url}/v1/sessions/revoke`, { method: "POST", headers: { authorization: `Bearer ${first}` } });
    t.equal(revoked.status, 200, "the user revokes their sessions");
    const refused = await activity(server.url, first);
    t.equal(refused.status, 401, "a token issued before the revocation is refused");
    t.equal(((await refused.json()) as { code: string }).code, "token_revoked");
    t.equal(await upgrade(server.url, first), "401", "on the realtime upgrade too");
    // Issue times are whole seconds: a token of the next second is after the revocation.
    await new Promise((resolve) => setTimeout(resolve, 1_100));
    const after = await providerToken(userId);
    t.equal((await activity(server.url, after)).status, 200, "a token issued after the revocation is accepted");
    t.equal(await upgrade(server.url, after), "open");
  }),
);

t.test("the CLI mints no token when only the provider's tokens are accepted", async (t) => {
  const config = await testConfig("sqlite", t, providerEnv);
  const failed = await cli(config, ["token", "--user", randomUUID()], providerEnv).then(
    () => undefined,
    (error: { code?: number; stderr?: string }) => error,
  );
  t.ok(failed !== undefined, "the command fails");
  t.match(failed?.stderr ?? "", /identity provider/, "and says where tokens come from");
});
