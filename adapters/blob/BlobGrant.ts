/**
 * The signed grant of the local blob store: `base64url(JSON claims) + "." + base64url(HMAC-SHA256)`.
 * The claims bind the object key, the method, and for uploads the exact size, SHA-256 and content
 * type, plus the expiry and the condition the grant was issued under, if any (GrantChecks.ts);
 * the MAC is compared in constant time, so a forged or edited grant is refused before anything
 * is read. The token is a bearer capability: it is never logged.
 */
import { createHmac, randomBytes, timingSafeEqual } from "node:crypto";
import { Data } from "effect";
import type { GrantCondition } from "../../ports/GrantChecks.js";

/** What a grant permits. */
export interface GrantClaims {
  readonly v: 1;
  /** Object key. */
  readonly k: string;
  readonly m: "PUT" | "GET";
  /** Expiry, epoch milliseconds. */
  readonly e: number;
  /** Exact size in bytes (uploads). */
  readonly s?: number;
  /** Lowercase hex SHA-256 of the bytes (uploads). */
  readonly h?: string;
  /** Content type to require (uploads) or to serve (downloads). */
  readonly t: string;
  /** Download file name. */
  readonly f?: string;
  /** Nonce, so two grants for the same operation differ. */
  readonly n: string;
  /** What the grant was issued under: checked with its issuer before a byte moves. */
  readonly c?: GrantCondition;
}

/** The grant is malformed or its signature does not verify (403 invalid_grant). */
export class InvalidGrant extends Data.TaggedError("InvalidGrant")<{ readonly detail?: string }> {
  readonly code = "invalid_grant";
  readonly category = "forbidden" as const;
}

/** The grant was valid but has expired (403 grant_expired). */
export class GrantExpired extends Data.TaggedError("GrantExpired")<{ readonly detail?: string }> {
  readonly code = "grant_expired";
  readonly category = "forbidden" as const;
}

/** The grant is for another method (403 grant_method_mismatch). */
export class GrantMethodMismatch extends Data.TaggedError("GrantMethodMismatch")<{ readonly detail?: string }> {
  readonly code = "grant_method_mismatch";
  readonly category = "forbidden" as const;
}

/** The uploaded bytes are not the size the grant binds (413 when longer, 422 when shorter). */
export class SizeMismatch extends Data.TaggedError("SizeMismatch")<{ readonly tooLarge: boolean; readonly detail?: string }> {
  readonly code = "size_mismatch";
  get category(): "payload_too_large" | "unprocessable" {
    return this.tooLarge ? "payload_too_large" : "unprocessable";
  }
}

/** The uploaded bytes do not hash to the SHA-256 the grant binds (422 checksum_mismatch). */
export class ChecksumMismatch extends Data.TaggedError("ChecksumMismatch")<{ readonly detail?: string }> {
  readonly code = "checksum_mismatch";
  readonly category = "unprocessable" as const;
}

/** The upload's Content-Type is not the one the grant binds (422 content_type_mismatch). */
export class ContentTypeMismatch extends Data.TaggedError("ContentTypeMismatch")<{ readonly detail?: string }> {
  readonly code = "content_type_mismatch";
  readonly category = "unprocessable" as const;
}

/** The granted object is not (or no longer) stored (404). */
export class BlobNotFound extends Data.TaggedError("BlobNotFound")<{ readonly detail?: string }> {
  readonly code = "not_found";
  readonly category = "not_found" as const;
}

const mac = (secret: string, payload: string): Buffer => createHmac("sha256", secret).update(payload).digest();

/** Signs `claims` (without nonce) into a grant token. */
export const signGrant = (secret: string, claims: Omit<GrantClaims, "v" | "n">): string => {
  const payload = Buffer.from(JSON.stringify({ v: 1, ...claims, n: randomBytes(9).toString("base64url") })).toString("base64url");
  return `${payload}.${mac(secret, payload).toString("base64url")}`;
};

const isCondition = (value: unknown): value is GrantCondition => {
  const c = value as Partial<GrantCondition> | null;
  return (
    typeof c === "object" &&
    c !== null &&
    typeof c.issuer === "string" &&
    typeof c.claim === "object" &&
    c.claim !== null &&
    Object.values(c.claim).every((v) => typeof v === "string" || typeof v === "number")
  );
};

const isClaims = (value: unknown): value is GrantClaims => {
  const c = value as Partial<GrantClaims> | null;
  return (
    typeof c === "object" &&
    c !== null &&
    c.v === 1 &&
    typeof c.k === "string" &&
    (c.m === "PUT" || c.m === "GET") &&
    typeof c.e === "number" &&
    typeof c.t === "string" &&
    (c.m === "GET" || (typeof c.s === "number" && typeof c.h === "string")) &&
    (c.c === undefined || isCondition(c.c))
  );
};

/**
 * Verifies `token` for `method` at `nowMs`: the signature first (constant time), then expiry,
 * then the method. Answers the claims or the typed refusal.
 */
export const verifyGrant = (
  secret: string,
  token: string,
  method: "PUT" | "GET",
  nowMs: number,
): GrantClaims | InvalidGrant | GrantExpired | GrantMethodMismatch => {
  const parts = token.split(".");
  const [payload, signature] = parts;
  if (parts.length !== 2 || payload === undefined || signature === undefined || token.length > 4096) {
    return new InvalidGrant({ detail: "The grant is malformed." });
  }
  const expected = mac(secret, payload);
  const given = Buffer.from(signature, "base64url");
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) {
    return new InvalidGrant({ detail: "The grant's signature does not verify." });
  }
  let claims: unknown;
  try {
    claims = JSON.parse(Buffer.from(payload, "base64url").toString("utf8"));
  } catch {
    return new InvalidGrant({ detail: "The grant is malformed." });
  }
  if (!isClaims(claims)) return new InvalidGrant({ detail: "The grant is malformed." });
  if (claims.e <= nowMs) return new GrantExpired({ detail: "The grant has expired; request a new one." });
  if (claims.m !== method) return new GrantMethodMismatch({ detail: `This grant permits ${claims.m} only.` });
  return claims;
};
