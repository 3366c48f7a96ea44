/** The Refunds port over dl_refunds (delivery migration 17). */
import { Effect } from "effect";
import { Refund } from "../../../core/delivery/model/Refund.js";
import type { Refunds } from "../../../ports/delivery/Refunds.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the refunds over `db`. */
export const makeSqlRefunds = (db: SqlDatabase): Refunds => {
  const f = featuresFor(db);
  const rows = rowCodec(Refund, f);
  return {
    insert: (refund) =>
      runQuery(db, (ex) => ex.insertInto("dl_refunds").values(rows.toRow(refund)).execute()).pipe(Effect.asVoid, withSpan("Refunds.insert")),
    find: (id) =>
      runQuery(db, (ex) => ex.selectFrom("dl_refunds").selectAll().where("id", "=", id).executeTakeFirst()).pipe(
        Effect.map((row) => (row === undefined ? null : rows.fromRow(row))),
        withSpan("Refunds.find"),
      ),
    ofOrder: ({ orderId, afterId, limit }) =>
      runQuery(db, (ex) => {
        let query = ex.selectFrom("dl_refunds").selectAll().where("order_id", "=", orderId);
        if (afterId !== null) query = query.where("id", ">", afterId);
        return query.orderBy("id").limit(limit).execute();
      }).pipe(
        Effect.map((list) => list.map(rows.fromRow)),
        withSpan("Refunds.ofOrder"),
      ),
    committedMinor: (orderId) =>
      runQuery(db, (ex) =>
        ex
          .selectFrom("dl_refunds")
          .select((eb) => eb.fn.coalesce(eb.fn.sum("amount_minor"), eb.lit(0)).as("total"))
          .where("order_id", "=", orderId)
          .where("status", "<>", "failed")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((row) => toNumber(row?.total ?? 0)),
        withSpan("Refunds.committedMinor"),
      ),
    settle: (id, outcome) =>
      runQuery(db, (ex) =>
        ex
          .updateTable("dl_refunds")
          .set({ status: outcome.status, failure: outcome.failure, settled_at: f.timeToDb(outcome.at) })
          .where("id", "=", id)
          .where("status", "=", "pending")
          .executeTakeFirst(),
      ).pipe(
        Effect.map((result) => toNumber(result.numUpdatedRows) > 0),
        withSpan("Refunds.settle"),
      ),
  };
};
