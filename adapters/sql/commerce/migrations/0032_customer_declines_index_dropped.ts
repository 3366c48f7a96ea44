/**
 * Commerce migration 32: `shop_orders_customer_declines` (migration 5) is dropped. It served the
 * customer's declines read of checkout risk, which the risk signal rows replaced (migrations
 * 29-31). No read of `shop_orders` needs it (test/commerce/checkout-risk-plans.test.ts plans
 * each one with a store's orders and statistics): a customer's orders are read through
 * `shop_orders_customer` in id order (Postgres chose the dropped index for a first page, then
 * sorted), the guest orders retention minimizes through `shop_orders_guests_to_minimize`, the
 * gauges' count through `shop_orders_status`, an order by its primary key. One index fewer to
 * write on every order's status move.
 */
import type { Migration } from "../../Migration.js";

const statements = [`DROP INDEX shop_orders_customer_declines`];

export const commerceMigration0032CustomerDeclinesIndexDropped: Migration = {
  version: 32,
  name: "customer_declines_index_dropped",
  sqlite: statements,
  postgres: statements,
};
