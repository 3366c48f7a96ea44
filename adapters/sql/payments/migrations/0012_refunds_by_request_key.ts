/**
 * Payments migration 12: a refund remembers the Idempotency-Key it was requested under. A retry
 * under the same key (after the first request failed or was cut off once the provider had been
 * called, which releases the key) resumes that refund under its own provider reference instead of
 * creating a second one, which the provider would pay out again. One refund per (merchant, key);
 * refunds made before this version have none.
 */
import type { Migration } from "../../Migration.js";

const statements = [
  `ALTER TABLE payment_refunds ADD COLUMN request_key TEXT`,
  `CREATE UNIQUE INDEX payment_refunds_request_key ON payment_refunds (merchant_id, request_key)`,
];

/** Version 12 of the payment module. */
export const paymentsMigration0012RefundsByRequestKey: Migration = {
  version: 12,
  name: "refunds_by_request_key",
  sqlite: statements,
  postgres: statements,
};
