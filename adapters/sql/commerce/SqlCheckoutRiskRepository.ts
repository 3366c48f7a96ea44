/**
 * The CheckoutRiskRepository port over `shop_checkout_risk_signals` (commerce migration 29): one
 * row per signal digest of a checkout, marked `declined_at` once when its order fails; declines
 * are read per digest through the partial index of marked rows.
 */
import { Effect } from "effect";
import type { CheckoutRiskRepository } from "../../../ports/commerce/CheckoutRiskRepository.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { featuresFor } from "../featuresFor.js";
import { compiledOnce, runQuery, runStatement, sendEach, sendStatement, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the checkout risk repository over `db`. */
export const makeSqlCheckoutRiskRepository = (db: SqlDatabase): CheckoutRiskRepository => {
  const f = featuresFor(db);
  const insertSignal = compiledOnce<{ orderId: string; signal: string; at: unknown }>((ex, p) =>
    ex
      .insertInto("shop_checkout_risk_signals")
      .values({ order_id: p("orderId"), signal: p("signal"), recorded_at: p("at"), declined_at: null })
      .onConflict((oc) => oc.columns(["order_id", "signal"]).doNothing()),
  );
  const markDeclined = compiledOnce<{ orderId: string; at: unknown }>((ex, p) =>
    ex.updateTable("shop_checkout_risk_signals").set({ declined_at: p("at") }).where("order_id", "=", p("orderId")).where("declined_at", "is", null),
  );
  const selectDeclines = compiledOnce<{ signal: string; since: unknown; limit: number }>((ex, p) =>
    ex
      .selectFrom("shop_checkout_risk_signals")
      .select("declined_at")
      .where("signal", "=", p("signal"))
      .where("declined_at", "is not", null)
      .where("declined_at", ">=", p("since"))
      .orderBy("declined_at")
      .limit(p("limit")),
  );
  return {
    recordSignals: (orderId, signals, at) =>
      sendEach(db, insertSignal, signals.map((signal) => ({ orderId, signal, at: f.timeToDb(at) }))).pipe(withSpan("CheckoutRiskRepository.recordSignals")),
    markDeclined: (orderId, at) => sendStatement(db, markDeclined, { orderId, at: f.timeToDb(at) }),
    declinesSince: (signal, since, limit) =>
      runStatement(db, selectDeclines, { signal, since: f.timeToDb(since), limit }).pipe(
        Effect.map(({ rows }) => rows.map((r) => f.timeFromDb(r.declined_at))),
      ),
    deleteRecordedBefore: (before, limit) =>
      Effect.gen(function* () {
        const rows = yield* runQuery(db, (ex) =>
          ex.selectFrom("shop_checkout_risk_signals").select("order_id").where("recorded_at", "<", f.timeToDb(before)).orderBy("recorded_at").limit(limit).execute(),
        );
        if (rows.length === 0) return 0;
        const orderIds = [...new Set(rows.map((r) => String(r.order_id)))];
        const deleted = yield* runQuery(db, (ex) =>
          ex.deleteFrom("shop_checkout_risk_signals").where("order_id", "in", orderIds).where("recorded_at", "<", f.timeToDb(before)).executeTakeFirst(),
        );
        return toNumber(deleted.numDeletedRows);
      }).pipe(withSpan("CheckoutRiskRepository.deleteRecordedBefore")),
  };
};
