/** The Substitutions port over dl_substitutions (one per order line; decided once, conditionally). */
import { Effect } from "effect";
import { Substitution } from "../../../core/delivery/model/Substitution.js";
import type { Substitutions } from "../../../ports/delivery/Substitutions.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { compiledOnce, runQuery, runStatement, slotsOf, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the substitutions over `db`. */
export const makeSqlSubstitutions = (db: SqlDatabase): Substitutions => {
  const f = featuresFor(db);
  const rows = rowCodec(Substitution, f);
  // The whole record's insert (none when the line has one), compiled once.
  const insertSubstitution = compiledOnce<Record<string, unknown>>((ex, p) =>
    ex
      .insertInto("dl_substitutions")
      .values(slotsOf(rows.columns, p))
      .onConflict((oc) => oc.columns(["order_id", "line_no"]).doNothing()),
  );
  return {
    insert: (substitution) =>
      runStatement(db, insertSubstitution, rows.toRow(substitution)).pipe(
        Effect.map((result) => (toNumber(result.numAffectedRows ?? 0n) > 0 ? ("inserted" as const) : ("exists" as const))),
        withSpan("Substitutions.insert"),
      ),
    find: (id) =>
      runQuery(db, (ex) => ex.selectFrom("dl_substitutions").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : rows.fromRow(row))),
        withSpan("Substitutions.find"),
      ),
    ofOrder: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_substitutions").selectAll().where("order_id", "=", orderId).orderBy("line_no").execute()).pipe(
        Effect.map((list) => list.map(rows.fromRow)),
        withSpan("Substitutions.ofOrder"),
      ),
    decide: (id, status, at) =>
      runQuery(db, (ex) =>
        ex.updateTable("dl_substitutions").set({ status, decided_at: f.timeToDb(at) }).where("id", "=", id).where("status", "=", "proposed").executeTakeFirst(),
      ).pipe(
        Effect.map((result) => toNumber(result.numUpdatedRows) > 0),
        withSpan("Substitutions.decide"),
      ),
  };
};
