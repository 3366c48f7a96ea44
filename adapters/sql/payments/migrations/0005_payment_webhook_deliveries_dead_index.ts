/**
 * Payments migration 5: a partial index on dead-lettered merchant webhook deliveries, so the
 * operators' cross-merchant queue (newest first by id, keyset pages) seeks its rows directly
 * instead of scanning every delivery; dead deliveries are few, so the index stays small.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX payment_webhook_deliveries_dead ON payment_webhook_deliveries (id) WHERE status = 'dead'`];

/** Version 5 of the payment module. */
export const paymentsMigration0005DeadDeliveries: Migration = {
  version: 5,
  name: "payment_webhook_deliveries_dead_index",
  sqlite: statements,
  postgres: statements,
};
