/**
 * Delivery migration 3: participant payables in payout batches (dl_payables), written by the
 * settlement consumer of DeliveryCompleted. Append-only; the settlement component key is unique,
 * so a redelivered event records nothing twice.
 */
import { appendOnlyTriggersSql } from "../../appendOnlyTriggers.js";
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_payables (
      id ${c.text} PRIMARY KEY,
      order_id ${c.text} NOT NULL REFERENCES dl_orders (id),
      delivery_id ${c.text} NOT NULL REFERENCES dl_deliveries (id),
      component_key ${c.text} NOT NULL UNIQUE REFERENCES dl_settlement_entries (component_key),
      account ${c.text} NOT NULL,
      amount_minor ${c.bigint} NOT NULL CHECK (amount_minor > 0),
      currency ${c.text} NOT NULL CHECK (length(currency) = 3),
      payout_batch ${c.text} NOT NULL,
      created_at ${c.time} NOT NULL
    )`,
    `CREATE INDEX dl_payables_order ON dl_payables (order_id)`,
    `CREATE INDEX dl_payables_batch ON dl_payables (payout_batch)`,
    ...appendOnlyTriggersSql(dialect, "dl_payables"),
  ];
};

export const deliveryMigration0003Payables: Migration = {
  version: 3,
  name: "payables",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
