/**
 * Merchant API keys over `payment_api_keys`. A secret is `sk_test_` plus 32 random bytes
 * (base64url); only its SHA-256 is stored (a fast hash is right for a high-entropy secret),
 * with a short prefix to find the candidate rows. Verification compares hashes in constant
 * time. The secret leaves this file once, in the answer to `issue`.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";
import { ApiKey } from "../../../core/payments/model/ApiKey.js";
import type { ApiKeys } from "../../../ports/payments/ApiKeys.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledOnce, runQuery, runStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Every merchant secret starts with this. */
export const apiKeyPrefix = "sk_test_";
const lookupLength = apiKeyPrefix.length + 12;

/** True when `token` has the shape of a merchant API key (no I/O). */
export const looksLikeApiKey = (token: string): boolean => /^sk_test_[A-Za-z0-9_-]{43}$/.test(token);

const hashOf = (secret: string): string => createHash("sha256").update(secret).digest("hex");

const sameHash = (a: string, b: string): boolean => {
  const left = Buffer.from(a, "hex");
  const right = Buffer.from(b, "hex");
  return left.length === right.length && timingSafeEqual(left, right);
};

/** Characters of the stored lookup prefix shown when listing: `sk_test_` and 4 more. */
const displayLength = apiKeyPrefix.length + 4;

/** Builds the ApiKeys port over `db`. */
export const makeSqlApiKeys = (db: SqlDatabase): ApiKeys => {
  const f = featuresFor(db);
  const summaryColumns = ["id", "merchant_id", "key_prefix", "scopes", "created_at", "expires_at", "revoked_at"] as const;
  const keys = rowCodec(ApiKey, f);
  // The stored lookup prefix is longer than what a listing shows.
  const summary = (row: Record<string, unknown>): ApiKey => keys.fromRow({ ...row, prefix: String(row.key_prefix).slice(0, displayLength) });
  // The key's insert and the lookup every authenticated payments request makes, compiled once.
  const insertKey = compiledOnce<{
    id: string;
    merchant_id: string;
    key_prefix: string;
    secret_hash: string;
    scopes: unknown;
    created_at: unknown;
    expires_at: unknown;
  }>((ex, p) =>
    ex.insertInto("payment_api_keys").values({
      id: p("id"),
      merchant_id: p("merchant_id"),
      key_prefix: p("key_prefix"),
      secret_hash: p("secret_hash"),
      scopes: p("scopes"),
      created_at: p("created_at"),
      expires_at: p("expires_at"),
      revoked_at: null,
    }),
  );
  const selectLiveByPrefix = compiledOnce<{ keyPrefix: string }>((ex, p) =>
    ex
      .selectFrom("payment_api_keys")
      .select(["id", "merchant_id", "secret_hash", "scopes", "expires_at"])
      .where("key_prefix", "=", p("keyPrefix"))
      .where("revoked_at", "is", null),
  );
  return {
    issue: ({ keyId, merchantId, scopes, now, expiresAt }) =>
      Effect.gen(function* () {
        const secret = apiKeyPrefix + randomBytes(32).toString("base64url");
        yield* runStatement(db, insertKey, {
            id: keyId,
            merchant_id: merchantId,
            key_prefix: secret.slice(0, lookupLength),
            secret_hash: hashOf(secret),
            scopes: f.jsonToDb(scopes),
            created_at: f.timeToDb(now),
            expires_at: expiresAt === undefined ? null : f.timeToDb(expiresAt),
          });
        return { keyId, secret };
      }).pipe(withSpan("ApiKeys.issue")),
    verify: (secret, now) =>
      Effect.gen(function* () {
        if (!looksLikeApiKey(secret)) return null;
        const { rows } = yield* runStatement(db, selectLiveByPrefix, { keyPrefix: secret.slice(0, lookupLength) });
        const hash = hashOf(secret);
        for (const row of rows) {
          const live = row.expires_at === null || f.timeFromDb(row.expires_at).getTime() > now.getTime();
          if (sameHash(String(row.secret_hash), hash) && live) {
            return { keyId: String(row.id), merchantId: String(row.merchant_id), scopes: f.jsonFromDb(row.scopes) as string[] };
          }
        }
        return null;
      }).pipe(withSpan("ApiKeys.verify")),
    revoke: ({ merchantId, keyId, now }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_api_keys")
          .set({ revoked_at: f.timeToDb(now) })
          .where("id", "=", keyId)
          .where("merchant_id", "=", merchantId)
          .where("revoked_at", "is", null)
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) === 1)),
    list: ({ merchantId, before, limit }) =>
      runQuery(db, (ex) => {
        let q = ex.selectFrom("payment_api_keys").select([...summaryColumns]).where("merchant_id", "=", merchantId);
        if (before !== undefined) q = q.where("id", "<", before);
        return q.orderBy("id", "desc").limit(limit).execute();
      }).pipe(Effect.map((rows) => rows.map(summary))),
    find: (merchantId, keyId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("payment_api_keys")
          .select([...summaryColumns])
          .where("id", "=", keyId)
          .where("merchant_id", "=", merchantId)
          .executeTakeFirst(),
      ).pipe(Effect.map((row) => (row === undefined ? null : summary(row)))),
    expire: ({ merchantId, keyId, at, now }) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("payment_api_keys")
          .set({ expires_at: f.timeToDb(at) })
          .where("id", "=", keyId)
          .where("merchant_id", "=", merchantId)
          .where("revoked_at", "is", null)
          // Live at `now` (an expired key stays expired when it was) and never extended: only an
          // absent expiry, or one later than both `now` and `at`, is moved earlier.
          .where((eb) =>
            eb.or([
              eb("expires_at", "is", null),
              eb.and([eb("expires_at", ">", f.timeToDb(at)), eb("expires_at", ">", f.timeToDb(now))]),
            ]),
          )
          .executeTakeFirst(),
      ).pipe(Effect.map((r) => toNumber(r.numUpdatedRows) === 1)),
  };
};
