/**
 * The CartTokens port with node:crypto: 32 random bytes (base64url) per guest cart, stored as
 * their SHA-256 hex digest. (Not SQL: it should move to adapters/system when the module is wired.)
 */
import { createHash, randomBytes } from "node:crypto";
import { Effect } from "effect";
import type { CartTokens } from "../../../ports/commerce/CartTokens.js";

const digest = (token: string): string => createHash("sha256").update(token).digest("hex");

export const cryptoCartTokens: CartTokens = {
  issue: Effect.sync(() => {
    const token = randomBytes(32).toString("base64url");
    return { token, hash: digest(token) };
  }),
  hash: digest,
};
