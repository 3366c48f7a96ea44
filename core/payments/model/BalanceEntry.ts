/** One immutable ledger entry of a merchant, with the source of its transaction. */
import { Schema, Struct } from "effect";
import { wireShape } from "../../kernel/Wire.js";
import { BalanceEntryId, LedgerTransactionId } from "./Ids.js";

/** A ledger entry joined with its transaction's source (payment_ledger_entries + transactions). */
export const BalanceEntry = Schema.Struct({
  id: BalanceEntryId,
  transactionId: LedgerTransactionId,
  source: Schema.String,
  account: Schema.String,
  amountMinor: Schema.Int,
  currency: Schema.String,
  createdAt: Schema.DateFromSelf,
});
export type BalanceEntry = typeof BalanceEntry.Type;

/** A ledger entry as its merchant sees it. */
export const BalanceTransactionView = Schema.Struct({
  id: BalanceEntry.fields.id,
  object: Schema.Literal("balance_transaction"),
  ...Struct.omit(BalanceEntry.fields, "id"),
});
export type BalanceTransactionView = typeof BalanceTransactionView.Type;
/** The balance transaction view on the wire. */
export const BalanceTransactionWire = wireShape(BalanceTransactionView);

/** The merchant's view of `entry`. */
export const balanceTransactionView = (entry: BalanceEntry): BalanceTransactionView => ({
  id: entry.id,
  object: "balance_transaction",
  ...Struct.omit(entry, "id"),
});
