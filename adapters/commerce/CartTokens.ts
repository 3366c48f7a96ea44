/**
 * The CartTokens port with node:crypto: `ct_` and 32 random bytes (base64url) per guest cart, stored as
 * their SHA-256 hex digest; a presented token is checked against a stored digest in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";
import type { CartTokens } from "../../ports/commerce/CartTokens.js";

/** Every cart token starts with this, so a host tells it from other bearer credentials without I/O. */
export const cartTokenPrefix = "ct_";

/** Whether `token` has the shape of a cart token. */
export const looksLikeCartToken = (token: string): boolean => /^ct_[A-Za-z0-9_-]{43}$/.test(token);

const digest = (token: string): string => createHash("sha256").update(token).digest("hex");

/** The presented token's digest against the stored one, in constant time (timingSafeEqual needs equal lengths). */
const matches = (token: string, stored: string): boolean => {
  const presented = Buffer.from(digest(token), "utf8");
  const expected = Buffer.from(stored, "utf8");
  return presented.length === expected.length && timingSafeEqual(presented, expected);
};

export const cryptoCartTokens: CartTokens = {
  issue: Effect.sync(() => {
    const token = `${cartTokenPrefix}${randomBytes(32).toString("base64url")}`;
    return { token, hash: digest(token) };
  }),
  hash: digest,
  matches,
};
