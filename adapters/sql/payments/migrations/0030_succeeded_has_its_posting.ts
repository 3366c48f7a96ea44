/**
 * Payments migration 30: a succeeded intent or refund has its ledger posting (spec, Payment
 * service: a capture and a completed refund post a balanced LedgerTransaction; sources
 * `payment_intent:<id>:capture` and `refund:<id>`, core/payments/LedgerPostings.ts). Only the core
 * tied them; now the database refuses an intent or a refund moved to (or inserted as) `succeeded`
 * whose posting of the same merchant is not in the ledger:
 *   - Postgres: deferred constraint triggers check at commit (the posting may come later in the
 *     transaction), through the ledger's unique index on `source`.
 *   - SQLite has no deferred triggers, and a deferred foreign key would fail at COMMIT, which group
 *     commit shares among transactions (adapters/sqlite/GroupCommit.ts): one bad writer would fail
 *     the innocent members of its group. So SQLite checks when the row moves (BEFORE UPDATE), and
 *     the core posts before it moves the row.
 * A row inserted already succeeded (the core never does; a direct writer might) is checked the
 * same way. A ledger transaction is never deleted (append-only), so a checked row stays true.
 */
import type { Migration } from "../../Migration.js";

const subjects = [
  { table: "payment_intents", name: "payment_intents_succeeded_posted", source: `'payment_intent:' || NEW.id || ':capture'`, what: "payment intent" },
  { table: "payment_refunds", name: "payment_refunds_succeeded_posted", source: `'refund:' || NEW.id`, what: "refund" },
] as const;

const posted = (source: string) => `EXISTS (SELECT 1 FROM payment_ledger_transactions WHERE source = ${source} AND merchant_id = NEW.merchant_id)`;

/** Version 30 of the payment module. */
export const paymentsMigration0030SucceededHasItsPosting: Migration = {
  version: 30,
  name: "succeeded_has_its_posting",
  sqlite: subjects.flatMap(({ table, name, source, what }) => [
    `CREATE TRIGGER ${name} BEFORE UPDATE OF status ON ${table} FOR EACH ROW ` +
      `WHEN NEW.status = 'succeeded' AND OLD.status IS NOT 'succeeded' AND NOT ${posted(source)} ` +
      `BEGIN SELECT RAISE(ABORT, 'a succeeded ${what} has its ledger posting'); END`,
    `CREATE TRIGGER ${name}_insert BEFORE INSERT ON ${table} FOR EACH ROW ` +
      `WHEN NEW.status = 'succeeded' AND NOT ${posted(source)} ` +
      `BEGIN SELECT RAISE(ABORT, 'a succeeded ${what} has its ledger posting'); END`,
  ]),
  postgres: subjects.flatMap(({ table, name, source, what }) => [
    `CREATE FUNCTION ${name}() RETURNS trigger LANGUAGE plpgsql AS $$
     BEGIN
       IF NOT ${posted(source)} THEN
         RAISE EXCEPTION 'succeeded ${what} % has no ledger posting', NEW.id USING ERRCODE = 'check_violation';
       END IF;
       RETURN NULL;
     END $$`,
    `CREATE CONSTRAINT TRIGGER ${name} AFTER UPDATE OF status ON ${table} DEFERRABLE INITIALLY DEFERRED
     FOR EACH ROW WHEN (NEW.status = 'succeeded' AND OLD.status <> 'succeeded') EXECUTE FUNCTION ${name}()`,
    `CREATE CONSTRAINT TRIGGER ${name}_insert AFTER INSERT ON ${table} DEFERRABLE INITIALLY DEFERRED
     FOR EACH ROW WHEN (NEW.status = 'succeeded') EXECUTE FUNCTION ${name}()`,
  ]),
};
