/**
 * Merchant API keys. Generating, hashing and verifying secrets happens behind this port (the
 * core never sees a hash): the secret is returned once at issue and stored only as a hash;
 * verification compares in constant time. Several live keys per merchant allow rotation with
 * overlap: issue the new key, move clients, then revoke the old one.
 */
import { Context, Effect } from "effect";
import type { ApiKey } from "../../core/payments/model/ApiKey.js";

/** A verified key: whose it is and what it may do. */
export interface VerifiedApiKey {
  readonly keyId: string;
  readonly merchantId: string;
  readonly scopes: ReadonlyArray<string>;
}

/** A freshly issued key; `secret` is the only copy and is never stored. */
export interface IssuedApiKey {
  readonly keyId: string;
  readonly secret: string;
}

/** Merchant API key storage and verification. */
export interface ApiKeys {
  /** Issues a key for `merchantId` with `scopes`, optionally expiring at `expiresAt`. */
  readonly issue: (req: {
    /** The new key's id (from the Ids port). */
    readonly keyId: string;
    readonly merchantId: string;
    readonly scopes: ReadonlyArray<string>;
    readonly now: Date;
    readonly expiresAt?: Date;
  }) => Effect.Effect<IssuedApiKey>;
  /** The live (not revoked, not expired) key matching `secret`, or null. */
  readonly verify: (secret: string, now: Date) => Effect.Effect<VerifiedApiKey | null>;
  /** Revokes a key of `merchantId`; false when there is no such live key. */
  readonly revoke: (req: { readonly merchantId: string; readonly keyId: string; readonly now: Date }) => Effect.Effect<boolean>;
  /** The keys of `merchantId` (live, expired and revoked), newest first, strictly before the key id `before`, at most `limit`. */
  readonly list: (req: { readonly merchantId: string; readonly before?: string; readonly limit: number }) => Effect.Effect<ReadonlyArray<ApiKey>>;
  /** One key of `merchantId`, or null (another merchant's key is null too). */
  readonly find: (merchantId: string, keyId: string) => Effect.Effect<ApiKey | null>;
  /**
   * Makes a key of `merchantId` that is live at `now` expire at `at` (never later than an expiry
   * it already has); false, changing nothing, when the key is not live at `now` (revoked, or
   * already expired), is not the merchant's, or would be extended.
   */
  readonly expire: (req: { readonly merchantId: string; readonly keyId: string; readonly at: Date; readonly now: Date }) => Effect.Effect<boolean>;
}
export const ApiKeys = Context.GenericTag<ApiKeys>("domainkit/payments/ApiKeys");
