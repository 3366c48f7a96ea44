/**
 * Intent client secrets over `payment_client_secrets`. A secret is `<intent id>_secret_` plus
 * 24 random bytes (base64url); only its SHA-256 is stored (a fast hash suffices for a
 * high-entropy secret) and verification compares hashes in constant time.
 */
import { createHash, randomBytes, timingSafeEqual } from "node:crypto";
import { Effect } from "effect";
import type { ClientSecrets } from "../../../ports/payments/ClientSecrets.js";
import { featuresFor } from "../featuresFor.js";
import { compiledOnce, runQuery, runStatement, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

const hashOf = (secret: string): Buffer => createHash("sha256").update(secret).digest();

/** Builds the ClientSecrets port over `db`. */
export const makeSqlClientSecrets = (db: SqlDatabase): ClientSecrets => {
  const f = featuresFor(db);
  // Issued with each intent and read on each client-side confirmation: compiled once.
  const insertSecret = compiledOnce<{ intentId: string; merchantId: string; secretHash: string; createdAt: unknown }>((ex, p) =>
    ex
      .insertInto("payment_client_secrets")
      .values({ intent_id: p("intentId"), merchant_id: p("merchantId"), secret_hash: p("secretHash"), created_at: p("createdAt") }),
  );
  const selectSecretHash = compiledOnce<{ intentId: string }>((ex, p) =>
    ex.selectFrom("payment_client_secrets").select("secret_hash").where("intent_id", "=", p("intentId")),
  );
  const newSecretOf = (intentId: string) => `${intentId}_secret_${randomBytes(24).toString("base64url")}`;
  return {
    reissue: ({ intentId, merchantId }) =>
      Effect.gen(function* () {
        const secret = newSecretOf(intentId);
        const replaced = yield* runQuery(db, (ex) =>
          ex
            .updateTable("payment_client_secrets")
            .set({ secret_hash: hashOf(secret).toString("hex") })
            .where("intent_id", "=", intentId)
            .where("merchant_id", "=", merchantId)
            .executeTakeFirst(),
        );
        return toNumber(replaced.numUpdatedRows) === 1 ? secret : null;
      }).pipe(withSpan("ClientSecrets.reissue")),
    issue: ({ intentId, merchantId, now }) =>
      Effect.gen(function* () {
        const secret = newSecretOf(intentId);
        // Nobody reads the answer (unanswered on Postgres; a failure fails the transaction).
        yield* sendStatement(db, insertSecret, { intentId, merchantId, secretHash: hashOf(secret).toString("hex"), createdAt: f.timeToDb(now) });
        return secret;
      }).pipe(withSpan("ClientSecrets.issue")),
    verify: (intentId, secret) =>
      runStatement(db, selectSecretHash, { intentId }).pipe(
        Effect.map(({ rows: [row] }) => {
          if (row === undefined) return false;
          const stored = Buffer.from(String(row.secret_hash), "hex");
          const given = hashOf(secret);
          return stored.length === given.length && timingSafeEqual(stored, given);
        }),
        withSpan("ClientSecrets.verify"),
      ),
  };
};
