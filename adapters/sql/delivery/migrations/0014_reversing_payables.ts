/**
 * Delivery migration 14: a settlement reversal reverses the payables already recorded (spec,
 * Resources: ledger entries balance; corrections are linked reversals). dl_payables gains
 * `reverses` (unique: a payable is reversed at most once); a reversing payable is negative, its
 * component key is the reversal entry's (`<key>:reversal`), and it must negate a recorded payable
 * of the same order, account and currency (insert trigger). An ordinary payable stays positive.
 * SQLite cannot change a CHECK in place: the table is rebuilt with its rows, indexes and
 * append-only triggers (dropping a table fires no delete trigger).
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const signed = `(reverses IS NULL AND amount_minor > 0) OR (reverses IS NOT NULL AND amount_minor < 0 AND component_key = reverses || ':reversal')`;
const noSuchPayable = `NOT EXISTS (SELECT 1 FROM dl_payables p WHERE p.component_key = NEW.reverses AND p.reverses IS NULL AND p.order_id = NEW.order_id AND p.account = NEW.account AND p.currency = NEW.currency AND p.amount_minor = -NEW.amount_minor)`;
const message = "dl_payables: a reversing payable negates a recorded payable of its order";

const sqlite = (): string[] => {
  const c = columnTypes("sqlite");
  const columns = "id, order_id, delivery_id, component_key, account, amount_minor, currency, payout_batch, created_at";
  return [
    `CREATE TABLE dl_payables_next (
      id ${c.text} PRIMARY KEY,
      order_id ${c.text} NOT NULL REFERENCES dl_orders (id),
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      component_key ${c.text} NOT NULL UNIQUE REFERENCES dl_settlement_entries (component_key),
      account ${c.text} NOT NULL,
      amount_minor ${c.bigint} NOT NULL,
      currency ${c.text} NOT NULL CHECK (length(currency) = 3),
      payout_batch ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL,
      reverses ${c.text} UNIQUE,
      CHECK (${signed})
    )`,
    `INSERT INTO dl_payables_next (${columns}, reverses) SELECT ${columns}, NULL FROM dl_payables`,
    `DROP TABLE dl_payables`,
    `ALTER TABLE dl_payables_next RENAME TO dl_payables`,
    `CREATE INDEX dl_payables_order ON dl_payables (order_id)`,
    `CREATE INDEX dl_payables_batch ON dl_payables (payout_batch)`,
    ...appendOnlyTriggersSql("sqlite", "dl_payables"),
    `CREATE TRIGGER dl_payables_reversal_of_a_payable BEFORE INSERT ON dl_payables WHEN NEW.reverses IS NOT NULL AND ${noSuchPayable} ` +
      `BEGIN SELECT RAISE(ABORT, '${message}'); END`,
  ];
};

const postgres = (): string[] => [
  `ALTER TABLE dl_payables ADD COLUMN reverses text UNIQUE`,
  `ALTER TABLE dl_payables DROP CONSTRAINT dl_payables_amount_minor_check`,
  `ALTER TABLE dl_payables ADD CONSTRAINT dl_payables_amount_minor_check CHECK (${signed})`,
  `CREATE FUNCTION dl_payables_reversal_of_a_payable() RETURNS trigger LANGUAGE plpgsql AS $$
   BEGIN
     IF NEW.reverses IS NOT NULL AND ${noSuchPayable} THEN
       RAISE EXCEPTION '${message}' USING ERRCODE = 'check_violation';
     END IF;
     RETURN NEW;
   END $$`,
  `CREATE TRIGGER dl_payables_reversal_of_a_payable BEFORE INSERT ON dl_payables FOR EACH ROW EXECUTE FUNCTION dl_payables_reversal_of_a_payable()`,
];

export const deliveryMigration0014ReversingPayables: Migration = {
  version: 14,
  name: "reversing_payables",
  sqlite: sqlite(),
  postgres: postgres(),
};
