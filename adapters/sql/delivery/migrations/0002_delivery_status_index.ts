/**
 * Delivery migration 2: deliveries by status, so the operators' gauge of deliveries still without
 * a courier counts from an index at every scrape.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX dl_deliveries_status ON dl_deliveries (status)`];

export const deliveryMigration0002DeliveryStatusIndex: Migration = {
  version: 2,
  name: "delivery_status_index",
  sqlite: statements,
  postgres: statements,
};
