/**
 * IdempotencyStore over `idempotency_keys`. Reserving is one conditional upsert: insert, or
 * take over a row whose in-progress lock or whole record has expired. The database decides, so
 * exactly one of many concurrent callers wins (Postgres row-locks the conflicting row).
 */
import { Effect } from "effect";
import type { IdempotencyRecord, IdempotencyStore, ReserveResult, StoredResponse } from "../../ports/IdempotencyStore.js";
import type { DialectFeatures } from "./DialectFeatures.js";
import { compiledOnce, runQuery, runStatement, sendStatement, toNumber } from "./runQuery.js";
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

/** The IdempotencyStore port. Every idempotent write of every module runs these: compiled once. */
export const makeSqlIdempotencyStore = (db: SqlDatabase, f: DialectFeatures): IdempotencyStore => {
  const upsertKey = compiledOnce<{
    scope: string;
    key: string;
    requestHash: string;
    lockedUntil: unknown;
    expiresAt: unknown;
    at: unknown;
  }>((ex, p) =>
    ex
      .insertInto("idempotency_keys")
      .values({
        scope: p("scope"),
        key: p("key"),
        request_hash: p("requestHash"),
        state: "in_progress",
        response: null,
        locked_until: p("lockedUntil"),
        expires_at: p("expiresAt"),
        created_at: p("at"),
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
              eb.and([eb("idempotency_keys.state", "=", "in_progress"), eb("idempotency_keys.locked_until", "<=", p("at"))]),
              eb("idempotency_keys.expires_at", "<=", p("at")),
            ]),
          ),
      )
      .returning("scope"),
  );
  const selectKey = compiledOnce<{ scope: string; key: string }>((ex, p) =>
    ex.selectFrom("idempotency_keys").selectAll().where("scope", "=", p("scope")).where("key", "=", p("key")),
  );
  const completeKey = compiledOnce<{ scope: string; key: string; response: unknown }>((ex, p) =>
    ex
      .updateTable("idempotency_keys")
      .set({ state: "completed", response: p("response") })
      .where("scope", "=", p("scope"))
      .where("key", "=", p("key"))
      // A stored response is final: a late completion never overwrites it.
      .where("state", "=", "in_progress"),
  );
  const releaseKey = compiledOnce<{ scope: string; key: string }>((ex, p) =>
    ex
      .deleteFrom("idempotency_keys")
      .where("scope", "=", p("scope"))
      .where("key", "=", p("key"))
      .where("state", "=", "in_progress"),
  );
  return {
    reserve: ({ scope, key, requestHash, now, lockedUntil, expiresAt }) => {
      const params = {
        scope,
        key,
        requestHash,
        lockedUntil: f.timeToDb(lockedUntil),
        expiresAt: f.timeToDb(expiresAt),
        at: f.timeToDb(now),
      };
      const upsert = runStatement(db, upsertKey, params);
      const existing = runStatement(db, selectKey, { scope, key });
      // Retried because the holder may release its row between our upsert and our read. Each
      // statement decides alone (the upsert elects the one winner), so no transaction of its own:
      // inside one (runIdempotentInTransaction) they join it; outside, the reservation is one
      // autocommit write that other requests see at once.
      const attempt = (triesLeft: number): Effect.Effect<ReserveResult> =>
        Effect.flatMap(upsert, ({ rows }) =>
          rows.length > 0
            ? Effect.succeed<ReserveResult>({ reserved: true })
            : Effect.flatMap(existing, ({ rows: [row] }) =>
                row !== undefined
                  ? Effect.succeed<ReserveResult>({ reserved: false, existing: toRecord(f, row) })
                  : triesLeft > 0
                    ? attempt(triesLeft - 1)
                    : Effect.die(new Error("idempotency: could not reserve or read the key")),
              ),
        );
      return attempt(3).pipe(withSpan("IdempotencyStore.reserve"));
    },
    // Its answer is not read: inside a Postgres transaction (runIdempotentInTransaction) it goes out with the COMMIT.
    complete: ({ scope, key, response }) =>
      sendStatement(db, completeKey, { scope, key, response: f.jsonToDb(response) }).pipe(withSpan("IdempotencyStore.complete")),
    release: (scope, key) =>
      runStatement(db, releaseKey, { scope, key }).pipe(Effect.asVoid, withSpan("IdempotencyStore.release")),
    purgeExpired: (now) =>
      runQuery(db, (ex) => ex.deleteFrom("idempotency_keys").where("expires_at", "<=", f.timeToDb(now)).executeTakeFirst()).pipe(
        Effect.map((result) => toNumber(result.numDeletedRows)),
        withSpan("IdempotencyStore.purgeExpired"),
      ),
  };
};
