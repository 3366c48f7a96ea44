/**
 * Bearer JWT authentication of the reference server (docs/conventions.md, Authentication): HS256
 * with a configured secret, or an identity provider's signature checked with its public key
 * (RS256, PS256, ES256/384/512 or EdDSA, by the key's type) or its published key set (JWKS), with
 * the issuer and audience when configured. `sub` is the user id (a UUID), `exp` is required, and
 * an `epoch` claim older than the user's current epoch is refused so revocation takes effect at
 * once. A token without an `epoch` claim (a provider's) is refused when it was issued (`iat`) no
 * later than the user's latest revocation.
 *
 * The library only needs `ctx.state.principal`: a host with its own authentication passes its
 * own middleware to `createKoaApp` / `mountRoutes` that sets `ctx.state.principal` (a
 * `Principal` from ports/Principal.ts) or throws `Unauthorized`, and this file is not used.
 */
import type { KeyObject } from "node:crypto";
import { createRemoteJWKSet, errors as joseErrors, jwtVerify, SignJWT, type JWTVerifyGetKey } from "jose";
import type { Context, Middleware } from "koa";
import { Unauthorized } from "../../core/kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";
import type { UserStanding } from "../../ports/UserEpochs.js";

/** Looks up where a user stands: current token epoch (0 for a user never revoked) and latest revocation. */
export type UserEpochLookup = (userId: string) => Promise<UserStanding>;

/**
 * How tokens are verified: an HS256 secret, an identity provider's public key, or both (each
 * token by the algorithm in its header); `issuer` and `audience` are required to match when set.
 */
export interface TokenVerification {
  readonly secret?: string | Uint8Array;
  readonly publicKey?: KeyObject;
  /**
   * The provider's published key set (JWKS) instead of one key: each token's key is the set's key
   * of its `kid`, fetched once and refetched (at most every 30 s) when a token names a key not yet
   * known, so the provider can rotate its keys without a restart.
   */
  readonly jwksUrl?: URL;
  readonly issuer?: string;
  readonly audience?: string;
}

/** An HS256 secret alone, or a whole verification. */
export type TokenVerifier = string | Uint8Array | TokenVerification;

/** Options of the JWT middleware. */
export interface JwtAuthenticationOptions {
  /** The HS256 secret shared with whoever mints tokens, or a whole verification (public key, issuer, audience). */
  readonly secret: TokenVerifier;
  /** Where each user stands; without it every epoch is accepted (no revocation). */
  readonly userEpochs?: UserEpochLookup;
}

const algorithm = "HS256";

/** The JWS algorithm a public key verifies, by its type (RSA: RS256; EC: by curve; Ed25519: EdDSA). */
export const publicKeyAlgorithm = (key: KeyObject): string => {
  switch (key.asymmetricKeyType) {
    case "rsa":
      return "RS256";
    case "rsa-pss":
      return "PS256";
    case "ed25519":
      return "EdDSA";
    case "ec": {
      const curve = key.asymmetricKeyDetails?.namedCurve;
      if (curve === "prime256v1") return "ES256";
      if (curve === "secp384r1") return "ES384";
      if (curve === "secp521r1") return "ES512";
      throw new Error(`unsupported EC curve ${String(curve)} (P-256, P-384 or P-521)`);
    }
    default:
      throw new Error(`unsupported public key type ${String(key.asymmetricKeyType)} (RSA, EC or Ed25519)`);
  }
};

/** The algorithms a key set's keys may sign with (the key's own type must fit, jose checks). */
const keySetAlgorithms = ["RS256", "PS256", "ES256", "ES384", "ES512", "EdDSA"];

/** A verification ready for jose: the accepted algorithms and the key for each token's header. */
interface PreparedVerification {
  readonly algorithms: string[];
  readonly keyFor: JWTVerifyGetKey;
  readonly issuer?: string;
  readonly audience?: string;
}

const prepared = new WeakMap<object, PreparedVerification>();

const prepare = (verifier: TokenVerifier): PreparedVerification => {
  const verification: TokenVerification = typeof verifier === "string" || verifier instanceof Uint8Array ? { secret: verifier } : verifier;
  const secret = verification.secret === undefined ? undefined : keyOf(verification.secret);
  const publicKey = verification.publicKey;
  if (publicKey !== undefined && verification.jwksUrl !== undefined) throw new Error("token verification takes a public key or a key set, not both");
  const keySet = verification.jwksUrl === undefined ? undefined : createRemoteJWKSet(verification.jwksUrl, { timeoutDuration: 5_000, cooldownDuration: 30_000 });
  const publicAlgorithms = publicKey !== undefined ? [publicKeyAlgorithm(publicKey)] : keySet !== undefined ? keySetAlgorithms : [];
  if (secret === undefined && publicAlgorithms.length === 0) throw new Error("token verification needs a secret, a public key or a key set");
  return {
    algorithms: [...(secret !== undefined ? [algorithm] : []), ...publicAlgorithms],
    // jose refuses a header algorithm outside `algorithms` before asking for a key, and a key
    // whose type does not fit the algorithm: an HS256 token is never checked against a public key.
    keyFor: (header, token) =>
      header.alg === algorithm ? (secret ?? new Uint8Array(0)) : keySet !== undefined ? keySet(header, token) : (publicKey ?? new Uint8Array(0)),
    ...(verification.issuer !== undefined ? { issuer: verification.issuer } : {}),
    ...(verification.audience !== undefined ? { audience: verification.audience } : {}),
  };
};

/** The prepared form of `verifier`, made once per secret or verification object. */
const preparedOf = (verifier: TokenVerifier): PreparedVerification => {
  if (typeof verifier === "string") return prepare(verifier);
  let known = prepared.get(verifier);
  if (known === undefined) prepared.set(verifier, (known = prepare(verifier)));
  return known;
};

const uuid = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

const keyOf = (secret: string | Uint8Array): Uint8Array =>
  typeof secret === "string" ? new TextEncoder().encode(secret) : secret;

/** Signs a token for a user: `sub` = userId, `exp` = now + ttlSeconds, `epoch` when given. */
export const mintToken = async (options: {
  readonly secret: string | Uint8Array;
  readonly userId: string;
  readonly ttlSeconds: number;
  readonly epoch?: number;
  /** The `auth_time` claim (Unix seconds): when the user signed in, for step-up checks. */
  readonly authTime?: number;
}): Promise<string> => {
  if (!uuid.test(options.userId)) throw new Error("mintToken: userId must be a UUID");
  const nowSeconds = Math.floor(Date.now() / 1000);
  return new SignJWT({
    ...(options.epoch === undefined ? {} : { epoch: options.epoch }),
    ...(options.authTime === undefined ? {} : { auth_time: options.authTime }),
  })
    .setProtectedHeader({ alg: algorithm, typ: "JWT" })
    .setSubject(options.userId.toLowerCase())
    .setIssuedAt(nowSeconds)
    .setExpirationTime(nowSeconds + options.ttlSeconds)
    .sign(keyOf(options.secret));
};

/**
 * Verifies a token and returns the user principal, or rejects with `Unauthorized` (`invalid`,
 * `expired` or `revoked`). Shared by the HTTP middleware and the ws upgrade.
 */
/**
 * Tokens whose signature and claims already verified under a secret, until they expire: the HMAC
 * check is the costliest step of authenticating a request and its answer cannot change for the
 * same token and secret. Only the signature is remembered; the epoch (revocation) is checked on
 * every request. Bounded: the oldest entries go first.
 */
const verifiedTokens = new Map<string, { readonly secret: TokenVerifier; readonly payload: Record<string, unknown>; readonly expiresAtMs: number }>();
const verifiedTokensCapacity = 10_000;

const rememberVerified = (token: string, secret: TokenVerifier, payload: Record<string, unknown>): void => {
  if (typeof payload.exp !== "number") return;
  if (verifiedTokens.size >= verifiedTokensCapacity) {
    const oldest = verifiedTokens.keys().next();
    if (oldest.done !== true) verifiedTokens.delete(oldest.value);
  }
  verifiedTokens.set(token, { secret, payload, expiresAtMs: payload.exp * 1000 });
};

export const verifyToken = async (
  secret: TokenVerifier,
  token: string,
  userEpochs?: UserEpochLookup,
): Promise<Principal> => {
  let payload: Record<string, unknown>;
  const known = verifiedTokens.get(token);
  if (known !== undefined && known.secret === secret && known.expiresAtMs > Date.now()) {
    payload = known.payload;
  } else {
    try {
      const verification = preparedOf(secret);
      ({ payload } = await jwtVerify(token, verification.keyFor, {
        algorithms: verification.algorithms,
        requiredClaims: ["exp", "sub"],
        ...(verification.issuer !== undefined ? { issuer: verification.issuer } : {}),
        ...(verification.audience !== undefined ? { audience: verification.audience } : {}),
      }));
    } catch (error) {
      // jose reports expiry only after the signature verified, so a forged token is never "expired".
      if (error instanceof joseErrors.JWTExpired) throw new Unauthorized({ reason: "expired" });
      throw new Unauthorized({ reason: "invalid" });
    }
    rememberVerified(token, secret, payload);
  }
  const sub = payload.sub;
  if (typeof sub !== "string" || !uuid.test(sub)) {
    throw new Unauthorized({ reason: "invalid", detail: "The token subject is not a user id." });
  }
  const epoch = payload.epoch;
  if (epoch !== undefined && (typeof epoch !== "number" || !Number.isInteger(epoch) || epoch < 0)) {
    throw new Unauthorized({ reason: "invalid", detail: "The token epoch is not a non-negative integer." });
  }
  const userId = sub.toLowerCase();
  if (userEpochs !== undefined && !standsAfterRevocation(epoch, payload.iat, await userEpochs(userId))) throw new Unauthorized({ reason: "revoked" });
  // OpenID Connect's auth_time (when the user signed in) travels for step-up checks; ignored when malformed.
  const authTime = payload.auth_time;
  return typeof authTime === "number" && Number.isFinite(authTime) ? { kind: "user", userId, authTime } : { kind: "user", userId };
};

/**
 * True when a token is not revoked: its epoch claim is at least the user's epoch; without the
 * claim, the user was never revoked, or the token was issued (`iat`, seconds) after the second of
 * the latest revocation. A user revoked before revocation times were kept refuses such tokens.
 */
export const standsAfterRevocation = (epoch: number | undefined, issuedAt: unknown, standing: UserStanding): boolean => {
  if (epoch !== undefined) return epoch >= standing.epoch;
  if (standing.epoch === 0) return true;
  if (standing.revokedAt === null || typeof issuedAt !== "number") return false;
  return issuedAt > Math.floor(standing.revokedAt.getTime() / 1000);
};

/** The token of an `Authorization: Bearer <token>` header, or undefined when there is none. */
export const bearerToken = (ctx: Context): string | undefined => {
  const match = /^Bearer[ ]+([^ ]+)[ ]*$/i.exec(ctx.get("Authorization"));
  return match?.[1];
};

/** Middleware: verifies the bearer token and sets `ctx.state.principal`; throws `Unauthorized`. */
export const jwtAuthentication = (options: JwtAuthenticationOptions): Middleware => async (ctx, next) => {
  const header = ctx.get("Authorization");
  if (header === "") throw new Unauthorized({ reason: "missing" });
  const token = bearerToken(ctx);
  if (token === undefined) throw new Unauthorized({ reason: "invalid", detail: "Authorization must be Bearer <token>." });
  ctx.state.principal = await verifyToken(options.secret, token, options.userEpochs);
  await next();
};

/** The principal an authentication middleware set, if any. */
export const principalOf = (ctx: Context): Principal | undefined => ctx.state.principal as Principal | undefined;
