/**
 * The CheckoutRiskRepository port over `shop_checkout_risk_signals` (commerce migration 29): one
 * row per signal digest of a checkout, marked `declined_at` once when its order fails; and over
 * `shop_checkout_risk_locks` (migration 30): one row per signal, upserted by each checkout to lock
 * the signal until its transaction ends. A row is settled (`settled_at`, migration 31) by the
 * database in the transaction that records its order's payment answer. Declines are read per
 * digest through the partial index of declined rows, checkouts in flight through the partial index
 * of unsettled ones (`shop_checkout_risk_unsettled`), so settled checkouts are never read: every
 * signal of a checkout in one statement.
 */
import { Effect } from "effect";
import { sql } from "kysely";
import type { CheckoutRiskRepository } from "../../../ports/commerce/CheckoutRiskRepository.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { featuresFor } from "../featuresFor.js";
import { compiledOnce, compiledPerRowCount, runQuery, runStatement, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Parameters `s0`…`s<n-1>` (the signals) with the others. */
const signalParams = <P extends Record<string, unknown>>(signals: ReadonlyArray<string>, rest: P): Record<string, unknown> =>
  Object.fromEntries([...signals.map((signal, i) => [`s${i}`, signal] as const), ...Object.entries(rest)]);

/** Builds the checkout risk repository over `db`. */
export const makeSqlCheckoutRiskRepository = (db: SqlDatabase): CheckoutRiskRepository => {
  const f = featuresFor(db);
  // One statement per number of signals (a checkout has one to three), compiled on first use.
  const upsertLocks = compiledPerRowCount<Record<string, unknown>>((n) =>
    compiledOnce<Record<string, unknown>>((ex, p) =>
      ex
        .insertInto("shop_checkout_risk_locks")
        .values(Array.from({ length: n }, (_, i) => ({ signal: p(`s${i}`), locked_at: p("at") })))
        .onConflict((oc) => oc.column("signal").doUpdateSet({ locked_at: sql`excluded.locked_at` })),
    ),
  );
  const insertSignals = compiledPerRowCount<Record<string, unknown>>((n) =>
    compiledOnce<Record<string, unknown>>((ex, p) =>
      ex
        .insertInto("shop_checkout_risk_signals")
        .values(Array.from({ length: n }, (_, i) => ({ order_id: p("orderId"), signal: p(`s${i}`), recorded_at: p("at"), declined_at: null })))
        .onConflict((oc) => oc.columns(["order_id", "signal"]).doNothing()),
    ),
  );
  const markDeclined = compiledOnce<{ orderId: string; at: unknown }>((ex, p) =>
    ex.updateTable("shop_checkout_risk_signals").set({ declined_at: p("at") }).where("order_id", "=", p("orderId")).where("declined_at", "is", null),
  );
  // Per signal `s<i>`: its newest declines of the window, and its undeclined checkouts of the window
  // whose payment has no answer (unsettled: the database settles a signal when its order's payment
  // status leaves authorizing/unknown, migration 31), each branch tagged with the signal's place.
  const selectRisk = compiledPerRowCount<Record<string, unknown>>((n) =>
    compiledOnce<Record<string, unknown>>((ex, p) => {
      const branches = Array.from({ length: n }, (_, i) => [
        ex
          .selectFrom(
            ex
              .selectFrom("shop_checkout_risk_signals")
              .select(["declined_at as at"])
              .where("signal", "=", p(`s${i}`))
              .where("declined_at", "is not", null)
              .where("declined_at", ">=", p("since"))
              // The newest: a retry waits for the bound's oldest of them (core/commerce/CheckoutRisk.ts).
              .orderBy("declined_at", "desc")
              .limit(p("limit"))
              .as(`declines${i}`),
          )
          .select([sql.raw<number>(String(i)).as("place"), "at", sql.raw<number>("0").as("unresolved")]),
        ex
          .selectFrom(
            ex
              .selectFrom("shop_checkout_risk_signals")
              .select(["recorded_at as at"])
              .where("signal", "=", p(`s${i}`))
              .where("settled_at", "is", null)
              .where("declined_at", "is", null)
              .where("recorded_at", ">=", p("since"))
              .limit(p("limit"))
              .as(`unresolved${i}`),
          )
          .select([sql.raw<number>(String(i)).as("place"), "at", sql.raw<number>("1").as("unresolved")]),
      ]).flat();
      return branches.slice(1).reduce((query, branch) => query.unionAll(branch), branches[0]!);
    }),
  );
  return {
    lockSignals: (signals, at) =>
      signals.length === 0
        ? Effect.void
        : Effect.asVoid(runStatement(db, upsertLocks(signals.length), signalParams([...signals].sort(), { at: f.timeToDb(at) }))).pipe(
            withSpan("CheckoutRiskRepository.lockSignals"),
          ),
    riskSince: (signals, since, limit) =>
      signals.length === 0
        ? Effect.succeed([])
        : runStatement(db, selectRisk(signals.length), signalParams(signals, { since: f.timeToDb(since), limit })).pipe(
            Effect.map(({ rows }) =>
              signals.map((_, i) => {
                const own = rows.filter((r) => Number(r.place) === i);
                return {
                  declines: own
                    .filter((r) => Number(r.unresolved) === 0)
                    .map((r) => f.timeFromDb(r.at))
                    .sort((a, b) => a.getTime() - b.getTime()),
                  unresolved: own.filter((r) => Number(r.unresolved) === 1).length,
                };
              }),
            ),
          ),
    recordSignals: (orderId, signals, at) =>
      signals.length === 0
        ? Effect.void
        : sendStatement(db, insertSignals(signals.length), signalParams(signals, { orderId, at: f.timeToDb(at) })).pipe(
            withSpan("CheckoutRiskRepository.recordSignals"),
          ),
    markDeclined: (orderId, at) => sendStatement(db, markDeclined, { orderId, at: f.timeToDb(at) }),
    deleteRecordedBefore: (before, limit) =>
      // The oldest `limit` signals recorded before the cut, exactly (not every signal of their
      // checkouts): the batch is located by row, as the table's key has two columns.
      runQuery(db, (ex) => {
        const batch = ex
          .selectFrom("shop_checkout_risk_signals as s")
          .select(sql.ref(`s.${f.rowLocator}`).as("locator"))
          .where("s.recorded_at", "<", f.timeToDb(before))
          .orderBy("s.recorded_at")
          .limit(limit);
        return ex.deleteFrom("shop_checkout_risk_signals").where(f.keyInBatch(f.rowLocator, batch)).executeTakeFirst();
      }).pipe(
        Effect.map((deleted) => toNumber(deleted.numDeletedRows)),
        withSpan("CheckoutRiskRepository.deleteRecordedBefore"),
      ),
    deleteLocksBefore: (before, limit) =>
      Effect.gen(function* () {
        const rows = yield* runQuery(db, (ex) =>
          ex.selectFrom("shop_checkout_risk_locks").select("signal").where("locked_at", "<", f.timeToDb(before)).orderBy("locked_at").limit(limit).execute(),
        );
        if (rows.length === 0) return 0;
        // Only locks still not taken since: a checkout may have taken one meanwhile.
        const deleted = yield* runQuery(db, (ex) =>
          ex
            .deleteFrom("shop_checkout_risk_locks")
            .where("signal", "in", rows.map((r) => String(r.signal)))
            .where("locked_at", "<", f.timeToDb(before))
            .executeTakeFirst(),
        );
        return toNumber(deleted.numDeletedRows);
      }).pipe(withSpan("CheckoutRiskRepository.deleteLocksBefore")),
  };
};
