/**
 * Commerce migration 28: the shopper's page of an order's timeline (GET /v1/orders/:id/timeline
 * and the order view's first page) leaves out the warehouse's `fulfillment.*` entries in the
 * query, before the limit. Assignments and releases repeat without end, so through
 * `shop_order_timeline_order` alone such a page could step over any number of them; this partial
 * index holds only the entries a shopper reads, in the seek's order. Its predicate is the text
 * the repository writes (adapters/sql/commerce/SqlOrdersRepository.ts, `selectTimelinePage`).
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX shop_order_timeline_shopper ON shop_order_timeline (order_id, id) WHERE kind NOT LIKE 'fulfillment.%'`];

export const commerceMigration0028TimelineShopperIndex: Migration = {
  version: 28,
  name: "timeline_shopper_index",
  sqlite: statements,
  postgres: statements,
};
