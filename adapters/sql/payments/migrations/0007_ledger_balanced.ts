/**
 * Payments migration 7: the database itself refuses a ledger transaction whose entries do not
 * sum to zero per currency (docs/architecture.md, Transactions: invariants are constraints too).
 * Postgres checks at commit with a deferred constraint trigger, so the entries of one posting may
 * be written in any order within its transaction. SQLite cannot defer a check to commit; there
 * the kernel Ledger's validation before every posting holds the rule (docs/decisions.md).
 */
import type { Migration } from "../../Migration.js";

/** Version 7 of the payment module. */
export const paymentsMigration0007LedgerBalanced: Migration = {
  version: 7,
  name: "ledger_balanced_per_currency",
  sqlite: [],
  postgres: [
    `CREATE FUNCTION payment_ledger_balanced() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF (SELECT sum(amount_minor) FROM payment_ledger_entries
           WHERE transaction_id = NEW.transaction_id AND currency = NEW.currency) <> 0 THEN
         RAISE EXCEPTION 'ledger transaction % does not balance in %', NEW.transaction_id, NEW.currency
           USING ERRCODE = 'check_violation';
       END IF;
       RETURN NULL;
     END $$`,
    `CREATE CONSTRAINT TRIGGER payment_ledger_balanced AFTER INSERT ON payment_ledger_entries
     DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION payment_ledger_balanced()`,
  ],
};
