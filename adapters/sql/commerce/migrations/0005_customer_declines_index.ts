/**
 * Commerce migration 5: a customer's orders by status and time, for the checkout-risk read
 * (`declinedCheckoutsSince`: the customer's failed orders in the last hour), which runs on every
 * checkout. Without it SQLite read every failed order of every customer through
 * `shop_orders_status` and sorted them; Postgres had only the customer's index to filter.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX shop_orders_customer_declines ON shop_orders (customer_id, status, updated_at)`];

export const commerceMigration0005CustomerDeclinesIndex: Migration = {
  version: 5,
  name: "customer_declines_index",
  sqlite: statements,
  postgres: statements,
};
