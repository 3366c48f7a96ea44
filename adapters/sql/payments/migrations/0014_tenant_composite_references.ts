/**
 * Payments migration 14: a row can no longer point at another merchant's intent or ledger
 * transaction (architecture.md, Storage: "composite foreign keys include [the tenant id], so a
 * cross-tenant reference cannot be stored"). Attempts, refunds, client secrets and disputes refer
 * to (intent id, merchant id), ledger entries to (transaction id, merchant id).
 *   - Postgres: UNIQUE (id, merchant_id) on payment_intents and payment_ledger_transactions, and
 *     composite foreign keys on the child tables (the single-column ones stay: they are implied).
 *   - SQLite cannot add a constraint to an existing table; as the other modules' later SQLite
 *     invariants do (delivery migration 8), BEFORE INSERT / UPDATE triggers refuse a child whose
 *     parent does not belong to the same merchant, and a parent's merchant never changes.
 */
import type { Migration } from "../../Migration.js";

/** Each child table, its reference column and merchant column, and the parent table. */
const references = [
  { child: "payment_attempts", column: "intent_id", parent: "payment_intents" },
  { child: "payment_refunds", column: "intent_id", parent: "payment_intents" },
  { child: "payment_client_secrets", column: "intent_id", parent: "payment_intents" },
  { child: "payment_disputes", column: "payment_intent_id", parent: "payment_intents" },
  { child: "payment_ledger_entries", column: "transaction_id", parent: "payment_ledger_transactions" },
] as const;
const parents = ["payment_intents", "payment_ledger_transactions"] as const;

const postgres = [
  ...parents.map((parent) => `ALTER TABLE ${parent} ADD CONSTRAINT ${parent}_id_merchant UNIQUE (id, merchant_id)`),
  ...references.map(
    ({ child, column, parent }) =>
      `ALTER TABLE ${child} ADD CONSTRAINT ${child}_same_merchant FOREIGN KEY (${column}, merchant_id) REFERENCES ${parent} (id, merchant_id)`,
  ),
];

const sameMerchantCheck = (column: string, parent: string) =>
  `WHEN NOT EXISTS (SELECT 1 FROM ${parent} WHERE id = NEW.${column} AND merchant_id = NEW.merchant_id) ` +
  `BEGIN SELECT RAISE(ABORT, 'cross-merchant reference refused'); END`;

const sqlite = [
  ...references.flatMap(({ child, column, parent }) => [
    `CREATE TRIGGER ${child}_same_merchant_insert BEFORE INSERT ON ${child} FOR EACH ROW ${sameMerchantCheck(column, parent)}`,
    `CREATE TRIGGER ${child}_same_merchant_update BEFORE UPDATE OF ${column}, merchant_id ON ${child} FOR EACH ROW ${sameMerchantCheck(column, parent)}`,
  ]),
  ...parents.map(
    (parent) =>
      `CREATE TRIGGER ${parent}_merchant_fixed BEFORE UPDATE OF id, merchant_id ON ${parent} FOR EACH ROW ` +
      `WHEN NEW.id IS NOT OLD.id OR NEW.merchant_id IS NOT OLD.merchant_id ` +
      `BEGIN SELECT RAISE(ABORT, 'the merchant of a referenced row never changes'); END`,
  ),
];

/** Version 14 of the payment module. */
export const paymentsMigration0014TenantCompositeReferences: Migration = {
  version: 14,
  name: "tenant_composite_references",
  sqlite,
  postgres,
};
