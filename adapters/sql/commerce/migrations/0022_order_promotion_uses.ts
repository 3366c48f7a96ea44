/**
 * Commerce migration 22: which promotions an order used (spec, E-commerce: prices kept correct
 * "across retries and partial failures"; a failed checkout releases what it held). Checkout
 * counts a use of each promotion it applies (`usage_count`, conditional on the limit) and now
 * records it here; an order that fails, expires or is cancelled gives its uses back once, marked
 * by `released_at` (a conditional update), so a limited code is not spent by a declined card.
 * Orders placed before this migration have no rows and give nothing back.
 */
import { columnTypes } from "../../ColumnTypes.js";
import type { Migration } from "../../Migration.js";
import type { SqlDialect } from "../../SqlDatabase.js";

const statements = (dialect: SqlDialect): string[] => {
  const c = columnTypes(dialect);
  return [
    `CREATE TABLE shop_order_promotions (
      order_id ${c.text} NOT NULL,
      store_id ${c.text} NOT NULL,
      promotion_id ${c.text} NOT NULL REFERENCES shop_promotions (id),
      released_at ${c.time},
      PRIMARY KEY (order_id, promotion_id),
      FOREIGN KEY (store_id, order_id) REFERENCES shop_orders (store_id, id)
    )`,
  ];
};

export const commerceMigration0022OrderPromotionUses: Migration = {
  version: 22,
  name: "order_promotion_uses",
  sqlite: statements("sqlite"),
  postgres: statements("postgres"),
};
