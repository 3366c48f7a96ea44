/**
 * Bearer JWT authentication of the reference server (docs/conventions.md, Authentication): HS256
 * with a configured secret, `sub` is the user id (a UUID), `exp` is required, and an `epoch`
 * claim older than the user's current epoch is refused so revocation takes effect at once.
 *
 * The library only needs `ctx.state.principal`: a host with its own authentication passes its
 * own middleware to `createKoaApp` / `mountRoutes` that sets `ctx.state.principal` (a
 * `Principal` from ports/Principal.ts) or throws `Unauthorized`, and this file is not used.
 */
import { errors as joseErrors, jwtVerify, SignJWT } from "jose";
import type { Context, Middleware } from "koa";
import { Unauthorized } from "../../core/kernel/Errors.js";
import type { Principal } from "../../ports/Principal.js";

/** Looks up a user's current token epoch (0 for a user never revoked). */
export type UserEpochLookup = (userId: string) => Promise<number>;

/** Options of the JWT middleware. */
export interface JwtAuthenticationOptions {
  /** The HS256 secret shared with whoever mints tokens. */
  readonly secret: string | Uint8Array;
  /** Current epoch per user; without it every epoch is accepted (no revocation). */
  readonly userEpochs?: UserEpochLookup;
}

const algorithm = "HS256";
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
const verifiedTokens = new Map<string, { readonly secret: string | Uint8Array; readonly payload: Record<string, unknown>; readonly expiresAtMs: number }>();
const verifiedTokensCapacity = 10_000;

const rememberVerified = (token: string, secret: string | Uint8Array, payload: Record<string, unknown>): void => {
  if (typeof payload.exp !== "number") return;
  if (verifiedTokens.size >= verifiedTokensCapacity) {
    const oldest = verifiedTokens.keys().next();
    if (oldest.done !== true) verifiedTokens.delete(oldest.value);
  }
  verifiedTokens.set(token, { secret, payload, expiresAtMs: payload.exp * 1000 });
};

export const verifyToken = async (
  secret: string | Uint8Array,
  token: string,
  userEpochs?: UserEpochLookup,
): Promise<Principal> => {
  let payload: Record<string, unknown>;
  const known = verifiedTokens.get(token);
  if (known !== undefined && known.secret === secret && known.expiresAtMs > Date.now()) {
    payload = known.payload;
  } else {
    try {
      ({ payload } = await jwtVerify(token, keyOf(secret), { algorithms: [algorithm], requiredClaims: ["exp", "sub"] }));
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
  const epoch = payload.epoch ?? 0;
  if (typeof epoch !== "number" || !Number.isInteger(epoch) || epoch < 0) {
    throw new Unauthorized({ reason: "invalid", detail: "The token epoch is not a non-negative integer." });
  }
  const userId = sub.toLowerCase();
  if (userEpochs !== undefined && epoch < (await userEpochs(userId))) throw new Unauthorized({ reason: "revoked" });
  // OpenID Connect's auth_time (when the user signed in) travels for step-up checks; ignored when malformed.
  const authTime = payload.auth_time;
  return typeof authTime === "number" && Number.isFinite(authTime) ? { kind: "user", userId, authTime } : { kind: "user", userId };
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
