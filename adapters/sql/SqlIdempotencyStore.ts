/**
 * IdempotencyStore over `idempotency_keys`. Reserving is one conditional upsert: insert, or
 * take over a row whose in-progress lock or whole record has expired. The database decides, so
 * exactly one of many concurrent callers wins (Postgres row-locks the conflicting row).
 */
import { Effect } from "effect";
import type { IdempotencyRecord, IdempotencyStore, ReserveResult, StoredResponse } from "../../ports/IdempotencyStore.js";
import type { Transactions } from "../../ports/Transactions.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import { runQuery, toNumber } from "./runQuery.js";
import type { SqlDatabase } from "./SqlDatabase.js";
import { withSpan } from "../../core/kernel/Span.js";

const toRecord = (f: DialectFeatures, row: any): IdempotencyRecord => ({
  scope: row.scope,
  key: row.key,
  requestHash: row.request_hash,
  state: row.state,
  response: row.response === null || row.response === undefined ? null : (f.jsonFromDb(row.response) as StoredResponse),
  lockedUntil: f.timeFromDb(row.locked_until),
  expiresAt: f.timeFromDb(row.expires_at),
});

/** The IdempotencyStore port. */
export const makeSqlIdempotencyStore = (db: SqlDatabase, f: DialectFeatures, tx: Transactions): IdempotencyStore => ({
  reserve: ({ scope, key, requestHash, now, lockedUntil, expiresAt }) => {
    const at = f.timeToDb(now);
    const upsert = runQuery(db, (ex) =>
      ex
        .insertInto("idempotency_keys")
        .values({
          scope,
          key,
          request_hash: requestHash,
          state: "in_progress",
          response: null,
          locked_until: f.timeToDb(lockedUntil),
          expires_at: f.timeToDb(expiresAt),
          created_at: at,
        })
        .onConflict((oc) =>
          oc
            .columns(["scope", "key"])
            .doUpdateSet((eb) => ({
              request_hash: eb.ref("excluded.request_hash"),
              state: "in_progress",
              response: null,
              locked_until: eb.ref("excluded.locked_until"),
              expires_at: eb.ref("excluded.expires_at"),
              created_at: eb.ref("excluded.created_at"),
            }))
            .where((eb) =>
              eb.or([
                eb.and([eb("idempotency_keys.state", "=", "in_progress"), eb("idempotency_keys.locked_until", "<=", at)]),
                eb("idempotency_keys.expires_at", "<=", at),
              ]),
            ),
        )
        .returning("scope")
        .execute(),
    );
    const existing = runQuery(db, (ex) =>
      ex.selectFrom("idempotency_keys").selectAll().where("scope", "=", scope).where("key", "=", key).executeTakeFirst(),
    );
    // Retried because the holder may release its row between our upsert and our read.
    const attempt = (triesLeft: number): Effect.Effect<ReserveResult> =>
      Effect.flatMap(upsert, (rows) =>
        rows.length > 0
          ? Effect.succeed<ReserveResult>({ reserved: true })
          : Effect.flatMap(existing, (row) =>
              row !== undefined
                ? Effect.succeed<ReserveResult>({ reserved: false, existing: toRecord(f, row) })
                : triesLeft > 0
                  ? attempt(triesLeft - 1)
                  : Effect.die(new Error("idempotency: could not reserve or read the key")),
            ),
      );
    return tx.run(attempt(3)).pipe(withSpan("IdempotencyStore.reserve"));
  },
  complete: ({ scope, key, response }) =>
    runQuery(db, (ex) =>
      ex
        .updateTable("idempotency_keys")
        .set({ state: "completed", response: f.jsonToDb(response) })
        .where("scope", "=", scope)
        .where("key", "=", key)
        // A stored response is final: a late completion never overwrites it.
        .where("state", "=", "in_progress")
        .execute(),
    ).pipe(Effect.asVoid, withSpan("IdempotencyStore.complete")),
  release: (scope, key) =>
    runQuery(db, (ex) =>
      ex
        .deleteFrom("idempotency_keys")
        .where("scope", "=", scope)
        .where("key", "=", key)
        .where("state", "=", "in_progress")
        .execute(),
    ).pipe(Effect.asVoid, withSpan("IdempotencyStore.release")),
  purgeExpired: (now) =>
    runQuery(db, (ex) => ex.deleteFrom("idempotency_keys").where("expires_at", "<=", f.timeToDb(now)).executeTakeFirst()).pipe(
      Effect.map((result) => toNumber(result.numDeletedRows)),
      withSpan("IdempotencyStore.purgeExpired"),
    ),
});

