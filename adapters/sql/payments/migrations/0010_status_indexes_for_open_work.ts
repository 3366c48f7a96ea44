/**
 * Payments migration 10: the rows in a state someone must act on, indexed apart from the rest.
 * The metrics scrape counts provider calls with an unknown outcome, open reconciliation
 * exceptions and pending merchant webhook deliveries; the exception report sums the open
 * exceptions by merchant and kind. With no index on these statuses each of them read the whole
 * table, which keeps every attempt, exception and delivery ever made. Partial indexes hold only
 * the few rows in those states; their readers state the status as a literal (the predicate).
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `CREATE INDEX payment_attempts_unknown ON payment_attempts (id) WHERE status = 'unknown'`,
  `CREATE INDEX payment_reconciliation_exceptions_open ON payment_reconciliation_exceptions (merchant_id, kind, opened_at) WHERE status = 'open'`,
  `CREATE INDEX payment_webhook_deliveries_pending ON payment_webhook_deliveries (id) WHERE status = 'pending'`,
];

/** Version 10 of the payment module. */
export const paymentsMigration0010StatusIndexesForOpenWork: Migration = {
  version: 10,
  name: "status_indexes_for_open_work",
  sqlite: statements,
  postgres: statements,
};
