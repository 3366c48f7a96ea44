/**
 * Payments migration 11: ledger transactions by time. Settlement reconciliation reads the
 * captures and refunds posted in one settlement window (`settledInWindow`); it now starts from the
 * window's ledger transactions, found by this index, instead of reading every capture and refund
 * ever made and filtering them by their transaction's time.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX payment_ledger_transactions_created ON payment_ledger_transactions (created_at)`];

/** Version 11 of the payment module. */
export const paymentsMigration0011LedgerTransactionsByTime: Migration = {
  version: 11,
  name: "ledger_transactions_by_time",
  sqlite: statements,
  postgres: statements,
};
