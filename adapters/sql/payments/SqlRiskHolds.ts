/**
 * Risk holds over `payment_risk_holds` (payments migration 24). Placing is an insert that does
 * nothing when the intent already has an active hold (the partial unique index decides, also
 * between concurrent placements); releasing is a conditional update of the active hold.
 */
import { Effect } from "effect";
import { RiskHold } from "../../../core/payments/model/RiskHold.js";
import type { RiskHolds } from "../../../ports/payments/RiskHolds.js";
import { withSpan } from "../../../core/kernel/Span.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledOnce, runQuery, runStatement, slotsOf } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";

/** Builds the RiskHolds port over `db`. */
export const makeSqlRiskHolds = (db: SqlDatabase): RiskHolds => {
  const f = featuresFor(db);
  const holds = rowCodec(RiskHold, f);
  const insertUnlessHeld = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("payment_risk_holds")
      .values(slotsOf(holds.columns, p))
      .onConflict((oc) => oc.column("intent_id").where("released_at", "is", null).doNothing())
      .returning("id"),
  );
  const selectActive = compiledOnce<{ intentId: string }>((ex, p) =>
    ex.selectFrom("payment_risk_holds").selectAll().where("intent_id", "=", p("intentId")).where("released_at", "is", null),
  );
  const releaseActive = compiledOnce<{ merchantId: string; intentId: string; releasedBy: string; reason: string; at: unknown }>((ex, p) =>
    ex
      .updateTable("payment_risk_holds")
      .set({ released_by: p("releasedBy"), release_reason: p("reason"), released_at: p("at") })
      .where("intent_id", "=", p("intentId"))
      .where("merchant_id", "=", p("merchantId"))
      .where("released_at", "is", null)
      .returningAll(),
  );
  return {
    place: (hold) =>
      runStatement(db, insertUnlessHeld, holds.toRow(hold)).pipe(
        Effect.map(({ rows }) => rows.length === 1),
        withSpan("RiskHolds.place"),
      ),
    active: (intentId) =>
      runStatement(db, selectActive, { intentId }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : holds.fromRow(row))),
        withSpan("RiskHolds.active"),
      ),
    release: ({ merchantId, intentId, releasedBy, reason, at }) =>
      runStatement(db, releaseActive, { merchantId, intentId, releasedBy, reason, at: f.timeToDb(at) }).pipe(
        Effect.map(({ rows: [row] }) => (row === undefined ? null : holds.fromRow(row))),
        withSpan("RiskHolds.release"),
      ),
    list: ({ merchantId, activeOnly, before, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("payment_risk_holds").selectAll().where("merchant_id", "=", merchantId);
        if (activeOnly) query = query.where("released_at", "is", null);
        if (before !== undefined) query = query.where("id", "<", before);
        return query.orderBy("id", "desc").limit(limit).execute();
      }).pipe(
        Effect.map((rows) => rows.map((row) => holds.fromRow(row))),
        withSpan("RiskHolds.list"),
      ),
  };
};
