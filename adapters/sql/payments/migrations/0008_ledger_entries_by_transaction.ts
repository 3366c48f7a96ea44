/**
 * Payments migration 8: ledger entries by transaction. Every posting on Postgres runs the
 * deferred balance check of migration 7 (`sum(amount_minor) … WHERE transaction_id = ? AND
 * currency = ?`) once per entry at commit, and reconciliation reads a transaction's entries by
 * `transaction_id`; without this index both read every entry of the ledger, so each payment's
 * commit cost grew with the size of the whole ledger.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX payment_ledger_entries_transaction ON payment_ledger_entries (transaction_id, currency)`];

/** Version 8 of the payment module. */
export const paymentsMigration0008LedgerEntriesByTransaction: Migration = {
  version: 8,
  name: "ledger_entries_by_transaction",
  sqlite: statements,
  postgres: statements,
};
