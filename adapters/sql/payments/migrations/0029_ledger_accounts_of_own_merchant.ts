/**
 * Payments migration 29: a ledger entry names only accounts of its own merchant (spec, Payment
 * service: merchant isolation on every command; core/payments/LedgerPostings.ts names them
 * `merchant:<merchant id>:<name>`). Migration 14 ties an entry's merchant to its transaction's;
 * nothing tied its account to either, so a writer could post into another merchant's balance. An
 * entry whose account does not begin with `merchant:<its merchant_id>:` followed by a name is
 * refused on insert (entries are append-only). The prefix is compared as a string, never as a
 * LIKE pattern, so `_` or `%` in an id match only themselves.
 */
import type { Migration } from "../../Migration.js";

const message = "a ledger entry names an account of its own merchant";
const prefix = `'merchant:' || NEW.merchant_id || ':'`;
const ownAccount = `(length(NEW.account) > length(${prefix}) AND substr(NEW.account, 1, length(${prefix})) = ${prefix})`;

/** Version 29 of the payment module. */
export const paymentsMigration0029LedgerAccountsOfOwnMerchant: Migration = {
  version: 29,
  name: "ledger_accounts_of_own_merchant",
  sqlite: [
    `CREATE TRIGGER payment_ledger_entries_own_account BEFORE INSERT ON payment_ledger_entries FOR EACH ROW ` +
      `WHEN NOT ${ownAccount} BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  ],
  postgres: [
    `CREATE FUNCTION payment_ledger_entries_own_account() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NOT ${ownAccount} THEN
         RAISE EXCEPTION '${message}' USING ERRCODE = 'check_violation';
       END IF;
       RETURN NEW;
     END $$`,
    `CREATE TRIGGER payment_ledger_entries_own_account BEFORE INSERT ON payment_ledger_entries
     FOR EACH ROW EXECUTE FUNCTION payment_ledger_entries_own_account()`,
  ],
};
