/** The delivery module's settlement ledger (dl_settlement_entries, append-only; component keys unique). */
import { Context, type Effect } from "effect";
import type { SettlementEntry } from "../../core/delivery/model/SettlementEntry.js";

export interface SettlementLedger {
  /**
   * Posts one balanced transaction's entries; when any component key is already posted, posts
   * nothing and answers "duplicate" (a retried completion settles once).
   */
  readonly post: (entries: ReadonlyArray<SettlementEntry>) => Effect.Effect<"posted" | "duplicate">;
  readonly entriesOfOrder: (orderId: string) => Effect.Effect<ReadonlyArray<SettlementEntry>>;
  /** The sum of every entry per currency (zero everywhere when the ledger balances). */
  readonly totalsByCurrency: Effect.Effect<ReadonlyArray<{ readonly currency: string; readonly totalMinor: number }>>;
}
export const SettlementLedger = Context.GenericTag<SettlementLedger>("domainkit/delivery/SettlementLedger");
