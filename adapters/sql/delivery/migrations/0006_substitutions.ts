/** Delivery migration 6: substitutions proposed by the restaurant on order lines (one per line). */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE dl_substitutions (
      id ${c.text} PRIMARY KEY,
      order_id ${c.text} NOT NULL REFERENCES dl_orders (id),
      line_no ${c.int} NOT NULL CHECK (line_no > 0),
      original_item_id ${c.text} NOT NULL,
      original_name ${c.text} NOT NULL,
      replacement_item_id ${c.text} NOT NULL,
      replacement_name ${c.text} NOT NULL,
      quantity ${c.int} NOT NULL CHECK (quantity > 0),
      replacement_unit_price_minor ${c.bigint} NOT NULL CHECK (replacement_unit_price_minor >= 0),
      charged_line_total_minor ${c.bigint} NOT NULL CHECK (charged_line_total_minor >= 0),
      reason ${c.text},
      status ${c.text} NOT NULL CHECK (status IN ('proposed', 'accepted', 'refused')),
      proposed_by ${c.text} NOT NULL,
      decided_at ${c.time},
      created_at ${c.time} NOT NULL,
      UNIQUE (order_id, line_no),
      CHECK ((status = 'proposed') = (decided_at IS NULL)),
      CHECK (replacement_item_id <> original_item_id)
    )`,
  ];
};

export const deliveryMigration0006Substitutions: Migration = {
  version: 6,
  name: "substitutions",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
