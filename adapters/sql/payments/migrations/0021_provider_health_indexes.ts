/**
 * Payments migration 21: the indexes the platform operators' provider health read needs (spec,
 * Payment service, Authentication 2), so it costs what is open, not the history: the pending
 * refunds (partial), and the provider events by arrival (the last webhook's time).
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `CREATE INDEX payment_refunds_pending ON payment_refunds (id) WHERE status = 'pending'`,
  `CREATE INDEX payment_provider_events_received ON payment_provider_events (received_at)`,
];

/** Version 21 of the payment module. */
export const paymentsMigration0021ProviderHealthIndexes: Migration = {
  version: 21,
  name: "provider_health_indexes",
  sqlite: statements,
  postgres: statements,
};
