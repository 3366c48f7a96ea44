/**
 * Commerce migration 3: orders by status, so operators' gauges (orders waiting on an unknown
 * payment outcome, cancellations requested) count from an index at every scrape.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX shop_orders_status ON shop_orders (status)`];

export const commerceMigration0003OrderStatusIndex: Migration = {
  version: 3,
  name: "order_status_index",
  sqlite: statements,
  postgres: statements,
};
