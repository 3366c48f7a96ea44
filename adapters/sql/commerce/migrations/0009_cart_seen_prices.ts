/**
 * Commerce migration 9: a cart keeps the subtotal and total its shopper was last shown (spec:
 * "A catalog price change that alters the total requires explicit customer confirmation"), so a
 * checkout can tell that the catalog changed since and ask for confirmation. Null until the cart
 * is first priced for its shopper (carts made before this migration: no check until then).
 */
import type { Migration } from "../../Migration.js";

export const commerceMigration0009CartSeenPrices: Migration = {
  version: 9,
  name: "cart_seen_prices",
  sqlite: [`ALTER TABLE shop_carts ADD COLUMN seen_subtotal_minor INTEGER`, `ALTER TABLE shop_carts ADD COLUMN seen_total_minor INTEGER`],
  postgres: [`ALTER TABLE shop_carts ADD COLUMN seen_subtotal_minor bigint`, `ALTER TABLE shop_carts ADD COLUMN seen_total_minor bigint`],
};
