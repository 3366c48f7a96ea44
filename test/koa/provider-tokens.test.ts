/**
 * Conventions, Authentication: "The reference server verifies JWTs (HS256 with a configured
 * secret, or a public key)". An identity provider's tokens are verified with its public key, by
 * the algorithm the key's type fixes, with the issuer and audience when configured; a token
 * signed any other way is refused. A provider's token carries no epoch: it is revoked when it was
 * issued no later than the user's latest revocation.
 */
import { randomUUID, generateKeyPairSync, type KeyObject } from "node:crypto";
import { SignJWT } from "jose";
import t from "tap";
import { verifyToken, type TokenVerification } from "../../adapters/koa/Authentication.js";
import { Unauthorized } from "../../core/kernel/Errors.js";
import type { UserStanding } from "../../ports/UserEpochs.js";

const outcome = async (p: Promise<unknown>): Promise<string> => {
  try {
    await p;
    return "accepted";
  } catch (error) {
    return error instanceof Unauthorized ? error.reason : `other: ${String(error)}`;
  }
};

const nowSeconds = () => Math.floor(Date.now() / 1000);

/** A provider's token: `sub`, `exp` in an hour, `iat`, and the claims given. */
const providerToken = (key: KeyObject | Uint8Array, alg: string, claims: Record<string, unknown> = {}, iat = nowSeconds()) =>
  new SignJWT(claims).setProtectedHeader({ alg }).setSubject(userId).setIssuedAt(iat).setExpirationTime(iat + 3600).sign(key);

const userId = randomUUID();
const neverRevoked = async (): Promise<UserStanding> => ({ epoch: 0, revokedAt: null });

/** Key pairs of each supported type, made as a provider would. */
const keyKinds = [
  { alg: "RS256", generate: () => generateKeyPairSync("rsa", { modulusLength: 2048 }) },
  { alg: "ES256", generate: () => generateKeyPairSync("ec", { namedCurve: "P-256" }) },
  { alg: "ES384", generate: () => generateKeyPairSync("ec", { namedCurve: "P-384" }) },
  { alg: "EdDSA", generate: () => generateKeyPairSync("ed25519") },
];
const keyPairs = keyKinds.map((kind) => ({ alg: kind.alg, pair: kind.generate() }));

t.test("a provider's token is accepted with its public key, by the algorithm of the key's type", async (t) => {
  for (const [i, { alg, pair }] of keyPairs.entries()) {
    const verification: TokenVerification = { publicKey: pair.publicKey };
    t.equal(await outcome(verifyToken(verification, await providerToken(pair.privateKey, alg), neverRevoked)), "accepted", alg);
    const another = keyKinds[i]!.generate();
    t.equal(await outcome(verifyToken(verification, await providerToken(another.privateKey, alg), neverRevoked)), "invalid", `${alg} signed by another key`);
  }
});

t.test("a token signed any other way is refused: HS256 over the public key, alg none, another algorithm", async (t) => {
  const { publicKey, privateKey } = keyPairs[0]!.pair;
  const verification: TokenVerification = { publicKey };
  const pem = publicKey.export({ type: "spki", format: "pem" }) as string;
  t.equal(await outcome(verifyToken(verification, await providerToken(new TextEncoder().encode(pem), "HS256"), neverRevoked)), "invalid", "HS256 keyed with the public key's PEM");
  const unsigned = `${Buffer.from(JSON.stringify({ alg: "none" })).toString("base64url")}.${Buffer.from(JSON.stringify({ sub: userId, exp: nowSeconds() + 60 })).toString("base64url")}.`;
  t.equal(await outcome(verifyToken(verification, unsigned, neverRevoked)), "invalid", "alg none");
  t.equal(await outcome(verifyToken(verification, await providerToken(privateKey, "PS256"), neverRevoked)), "invalid", "PS256 with an RS256 key");
  const secretOnly = "a-secret-of-at-least-thirty-two-characters!";
  t.equal(await outcome(verifyToken(secretOnly, await providerToken(privateKey, "RS256"), neverRevoked)), "invalid", "RS256 where only HS256 is configured");
});

t.test("with both, each token is checked by its header: HS256 by the secret, the provider's by its key", async (t) => {
  const { publicKey, privateKey } = keyPairs[1]!.pair;
  const secret = "a-secret-of-at-least-thirty-two-characters!";
  const verification: TokenVerification = { secret, publicKey };
  t.equal(await outcome(verifyToken(verification, await providerToken(privateKey, "ES256"), neverRevoked)), "accepted");
  t.equal(await outcome(verifyToken(verification, await providerToken(new TextEncoder().encode(secret), "HS256"), neverRevoked)), "accepted");
  t.equal(await outcome(verifyToken({ publicKey }, await providerToken(new TextEncoder().encode(secret), "HS256"), neverRevoked)), "invalid", "HS256 without a secret");
});

t.test("issuer and audience must match when configured", async (t) => {
  const { publicKey, privateKey } = keyPairs[1]!.pair;
  const verification: TokenVerification = { publicKey, issuer: "https://id.example.com/", audience: "domainkit-api" };
  const sign = (claims: Record<string, unknown>) => providerToken(privateKey, "ES256", claims);
  t.equal(await outcome(verifyToken(verification, await sign({ iss: "https://id.example.com/", aud: "domainkit-api" }), neverRevoked)), "accepted");
  t.equal(await outcome(verifyToken(verification, await sign({ iss: "https://id.example.com/", aud: ["other", "domainkit-api"] }), neverRevoked)), "accepted", "one of several audiences");
  t.equal(await outcome(verifyToken(verification, await sign({ iss: "https://id.example.com/", aud: "another-app" }), neverRevoked)), "invalid", "another application's token");
  t.equal(await outcome(verifyToken(verification, await sign({ iss: "https://evil.example.com/", aud: "domainkit-api" }), neverRevoked)), "invalid", "another issuer");
  t.equal(await outcome(verifyToken(verification, await sign({ aud: "domainkit-api" }), neverRevoked)), "invalid", "no issuer");
});

t.test("a token without an epoch is revoked when issued no later than the user's latest revocation", async (t) => {
  const { publicKey, privateKey } = keyPairs[1]!.pair;
  const verification: TokenVerification = { publicKey };
  const revokedAt = new Date((nowSeconds() - 100) * 1000 + 400);
  const standing = async (): Promise<UserStanding> => ({ epoch: 3, revokedAt });
  const issued = (iat: number) => providerToken(privateKey, "ES256", {}, iat);
  t.equal(await outcome(verifyToken(verification, await issued(nowSeconds() - 200), standing)), "revoked", "issued before");
  t.equal(await outcome(verifyToken(verification, await issued(nowSeconds() - 100), standing)), "revoked", "issued in the revocation's second");
  t.equal(await outcome(verifyToken(verification, await issued(nowSeconds() - 99), standing)), "accepted", "issued after");
  const legacy = async (): Promise<UserStanding> => ({ epoch: 3, revokedAt: null });
  t.equal(await outcome(verifyToken(verification, await issued(nowSeconds()), legacy)), "revoked", "revoked before revocation times were kept");
  t.equal(await outcome(verifyToken(verification, await issued(nowSeconds()), neverRevoked)), "accepted", "never revoked");
  t.equal(await outcome(verifyToken(verification, await providerToken(privateKey, "ES256", { epoch: 3 }), standing)), "accepted", "an epoch claim is judged by the epoch");
  t.equal(await outcome(verifyToken(verification, await providerToken(privateKey, "ES256", { epoch: 2 }), standing)), "revoked");
});

t.test("with the provider's key set (JWKS), each token is checked with the key its kid names", async (t) => {
  const { createServer } = await import("node:http");
  const { exportJWK } = await import("jose");
  const first = generateKeyPairSync("ec", { namedCurve: "P-256" });
  const second = generateKeyPairSync("rsa", { modulusLength: 2048 });
  const keys = [
    { ...(await exportJWK(first.publicKey)), kid: "k1", alg: "ES256", use: "sig" },
    { ...(await exportJWK(second.publicKey)), kid: "k2", alg: "RS256", use: "sig" },
  ];
  let fetches = 0;
  const server = createServer((_request, response) => {
    fetches += 1;
    response.writeHead(200, { "content-type": "application/json" }).end(JSON.stringify({ keys }));
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", () => resolve()));
  t.teardown(() => new Promise<void>((resolve) => server.close(() => resolve())));
  const { port } = server.address() as { port: number };
  const verification: TokenVerification = { jwksUrl: new URL(`http://127.0.0.1:${port}/.well-known/jwks.json`), audience: "domainkit-api" };
  const signed = (key: KeyObject, alg: string, kid: string) =>
    new SignJWT({ aud: "domainkit-api" }).setProtectedHeader({ alg, kid }).setSubject(userId).setIssuedAt().setExpirationTime("1h").sign(key);
  t.equal(await outcome(verifyToken(verification, await signed(first.privateKey, "ES256", "k1"), neverRevoked)), "accepted", "the first key");
  t.equal(await outcome(verifyToken(verification, await signed(second.privateKey, "RS256", "k2"), neverRevoked)), "accepted", "the second key");
  t.equal(fetches, 1, "the set is fetched once");
  t.equal(await outcome(verifyToken(verification, await signed(first.privateKey, "ES256", "k2"), neverRevoked)), "invalid", "signed by another key than its kid names");
  t.equal(await outcome(verifyToken(verification, await signed(generateKeyPairSync("ec", { namedCurve: "P-256" }).privateKey, "ES256", "k1"), neverRevoked)), "invalid", "a key outside the set");
  const hs256 = await new SignJWT({ aud: "domainkit-api" }).setProtectedHeader({ alg: "HS256", kid: "k1" }).setSubject(userId).setIssuedAt().setExpirationTime("1h").sign(new TextEncoder().encode("x".repeat(40)));
  t.equal(await outcome(verifyToken(verification, hs256, neverRevoked)), "invalid", "HS256 is not a key set's algorithm");
});
