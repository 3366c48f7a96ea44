/** The SettlementLedger port over dl_settlement_entries (append-only; component keys unique). */
import { Effect } from "effect";
import { SettlementEntry } from "../../../core/delivery/model/SettlementEntry.js";
import type { SettlementLedger } from "../../../ports/delivery/SettlementLedger.js";
import { featuresFor } from "../featuresFor.js";
import { rowCodec } from "../RowCodec.js";
import { runQuery, toNumber } from "../runQuery.js";
import type { SqlDatabase } from "../SqlDatabase.js";
import { withSpan } from "../../../core/kernel/Span.js";

/** Builds the settlement ledger over `db`. */
export const makeSqlSettlementLedger = (db: SqlDatabase): SettlementLedger => {
  const f = featuresFor(db);
  const entries = rowCodec(SettlementEntry, f);
  return {
    post: (list) =>
      runQuery(db, async (ex) => {
        if (list.length === 0) return "posted" as const;
        const keys = list.map((e) => e.componentKey);
        const existing = await ex.selectFrom("dl_settlement_entries").select("component_key").where("component_key", "in", keys).execute();
        if (existing.length > 0) return "duplicate" as const;
        await ex.insertInto("dl_settlement_entries").values(list.map(entries.toRow)).execute();
        return "posted" as const;
      }).pipe(withSpan("SettlementLedger.post")),
    entriesOfOrder: (orderId) =>
      runQuery(db, (ex) => ex.selectFrom("dl_settlement_entries").selectAll().where("order_id", "=", orderId).orderBy("component").execute()).pipe(
        Effect.map((rows) => rows.map(entries.fromRow)),
      ),
    totalsByCurrency: runQuery(db, (ex) =>
      ex
        .selectFrom("dl_settlement_entries")
        .select((eb) => ["currency", eb.fn.sum("amount_minor").as("total")])
        .groupBy("currency")
        .orderBy("currency")
        .execute(),
    ).pipe(Effect.map((rows) => rows.map((row) => ({ currency: String(row.currency), totalMinor: toNumber(row.total) })))),
  };
};
