/**
 * Payments migration 20: on Postgres a ledger transaction cannot commit with fewer than two entries
 * (spec, Payment service: a LedgerTransaction is a "posting envelope; has at least two entries that
 * sum to zero per currency"). Migration 7's balance check runs per entry, so an envelope without
 * entries was never checked, and it would still hold its unique source (a capture "posted" with no
 * money moved). A deferred constraint trigger counts the envelope's entries at commit (through
 * migration 8's index on `(transaction_id, currency)`). SQLite cannot defer a check to commit: there
 * the kernel Ledger's validation before every posting holds the rule, as it does the balance.
 */
import type { Migration } from "../../Migration.js";

/** Version 20 of the payment module. */
export const paymentsMigration0020LedgerTransactionsHaveEntries: Migration = {
  version: 20,
  name: "ledger_transactions_have_entries",
  sqlite: [],
  postgres: [
    `CREATE FUNCTION payment_ledger_has_entries() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF (SELECT count(*) FROM payment_ledger_entries WHERE transaction_id = NEW.id) < 2 THEN
         RAISE EXCEPTION 'ledger transaction % needs at least two entries', NEW.id USING ERRCODE = 'check_violation';
       END IF;
       RETURN NULL;
     END $$`,
    `CREATE CONSTRAINT TRIGGER payment_ledger_has_entries AFTER INSERT ON payment_ledger_transactions
     DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION payment_ledger_has_entries()`,
  ],
};
