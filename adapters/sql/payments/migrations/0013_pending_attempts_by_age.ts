/**
 * Payments migration 13: attempts still waiting for the provider's answer, by age. The sweep of
 * unrecorded answers (core/payments/UnrecordedAnswers.ts) looks every minute for attempts left
 * `pending` longer than their call can take; this partial index holds only the few in flight.
 */
import type { Migration } from "../../Migration.js";

const statements = [`CREATE INDEX payment_attempts_pending ON payment_attempts (created_at) WHERE status = 'pending'`];

/** Version 13 of the payment module. */
export const paymentsMigration0013PendingAttemptsByAge: Migration = {
  version: 13,
  name: "pending_attempts_by_age",
  sqlite: statements,
  postgres: statements,
};
