/**
 * The ProviderHealthReads port over the payment tables: five small reads of open work, each by a
 * partial index (payments migrations 10, 13 and 21). Statuses are literals: the predicates of the
 * partial indexes.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import type { ProviderHealthReads } from "../../../ports/payments/ProviderHealth.js";
import { featuresFor } from "../featuresFor.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the provider health reads over `db`. */
export const makeSqlProviderHealth = (db: SqlDatabase): ProviderHealthReads => {
  const f = featuresFor(db);
  const count = (rows: ReadonlyArray<{ n: unknown }>) => toNumber(rows[0]?.n ?? 0);
  return {
    snapshot: ({ unrecordedBefore }) =>
      Effect.gen(function* () {
        const unknown = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("payment_attempts as a")
            .innerJoin("payment_intents as i", "i.id", "a.intent_id")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("a.status", "=", sql.lit("unknown"))
            .where("i.status", "=", sql.lit("processing"))
            .whereRef("i.attempt_count", "=", "a.number")
            .execute(),
        );
        const unrecorded = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("payment_attempts")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("status", "=", sql.lit("pending"))
            .where("created_at", "<", f.timeToDb(unrecordedBefore))
            .execute(),
        );
        const refunds = yield* runQuery(db, (ex) =>
          ex.selectFrom("payment_refunds").select((eb) => eb.fn.countAll().as("n")).where("status", "=", sql.lit("pending")).execute(),
        );
        const unresolved = yield* runQuery(db, (ex) =>
          ex
            .selectFrom("payment_reconciliation_exceptions")
            .select((eb) => eb.fn.countAll().as("n"))
            .where("status", "=", sql.lit("open"))
            .where("kind", "=", sql.lit("unresolved"))
            .execute(),
        );
        const last = yield* runQuery(db, (ex) =>
          ex.selectFrom("payment_provider_events").select("received_at").orderBy("received_at", "desc").limit(1).executeTakeFirst(),
        );
        return {
          unknownAttempts: count(unknown),
          unrecordedAttempts: count(unrecorded),
          pendingRefunds: count(refunds),
          openUnresolvedExceptions: count(unresolved),
          lastProviderEventAt: last === undefined ? null : f.timeFromDb(last.received_at),
        };
      }).pipe(withSpan("ProviderHealthReads.snapshot")),
  };
};
